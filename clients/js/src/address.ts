// The arbiter's address as the SDK connects to it: HOST:PORT, with port 50051 when none is given.
// gRPC itself would take port 443 for a bare HOST, which is never where an arbiter listens by
// default (`arbiter serve` listens on 50051). The same rules as the Python SDK's arbiter_bot/address.py.

/** The port of an address given without one (`arbiter serve`'s default port). */
export const DEFAULT_PORT = 50051;

// gRPC target schemes (unix:PATH, dns:///HOST:PORT, ipv4:ADDR, ...): left as they are.
const SCHEME = /^(dns|unix|unix-abstract|ipv4|ipv6|vsock|xds):(?!\d+$)/;

/** `address` with `:50051` added when it names no port. `HOST`, `HOST:` and `[IPV6]` get the
 * default port; so does a bare IPv6 address such as `::1` (an IPv6 address with a port is written
 * `[::1]:7000`). `HOST:PORT`, `[IPV6]:PORT` and gRPC targets with a scheme
 * (`unix:/run/arbiter.sock`, `dns:///...`) are returned unchanged. */
export function withDefaultPort(address: string): string {
  const a = address.trim();
  if (a === "" || SCHEME.test(a)) return a;
  if (a.startsWith("[")) return a.endsWith("]") ? `${a}:${DEFAULT_PORT}` : a;
  const colons = a.split(":").length - 1;
  if (colons === 0) return `${a}:${DEFAULT_PORT}`;
  if (colons === 1) return a.endsWith(":") ? `${a}${DEFAULT_PORT}` : a;
  return `[${a}]:${DEFAULT_PORT}`; // an IPv6 address without brackets has no port
}
