// A small seedable random generator (mulberry32), so that --seed makes a bot's choices repeatable.
export type Rng = () => number;

export function makeRng(seed?: number): Rng {
  if (seed === undefined) return Math.random;
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function choice<T>(rng: Rng, items: readonly T[]): T {
  if (!items.length) throw new Error("choice from an empty list");
  return items[Math.floor(rng() * items.length)];
}
