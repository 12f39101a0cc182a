#!/usr/bin/env bash
# buf lint on proto/ (STANDARD + COMMENTS rules). Installs @bufbuild/buf from the npm registry
# into proto/.buf-tool on first use. google/rpc/status.proto comes from the installed
# googleapis-common-protos package and is linted as a dependency only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python}
tool="$here/.buf-tool"
if [ ! -x "$tool/node_modules/.bin/buf" ]; then
  mkdir -p "$tool"
  (cd "$tool" && npm install --silent --no-audit --no-fund --prefix "$tool" @bufbuild/buf@1 >/dev/null)
fi
googleapis=$("$python" -c "import google.rpc.status_pb2 as m, pathlib; print(pathlib.Path(m.__file__).resolve().parents[2])")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/deps/google/rpc"
cp -r "$here/arbiter" "$here/buf.yaml" "$work/src/"
cp "$googleapis/google/rpc/status.proto" "$work/deps/google/rpc/"
cat > "$work/buf.yaml" <<YAML
version: v2
modules:
  - path: src
  - path: deps
lint:
  use: [STANDARD, COMMENTS]
  ignore: [deps]
YAML
cd "$work"
"$tool/node_modules/.bin/buf" lint
echo "buf lint: clean"
