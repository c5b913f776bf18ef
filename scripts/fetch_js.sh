#!/usr/bin/env bash
# Fetch the JavaScript that the built book needs to show widgets and formulas with no network:
# the ipywidgets HTML manager, RequireJS and MathJax 3, from the npm registry, copied into DEST.
set -euo pipefail
DEST=${1:-book/vendor}
WORK=.npm-offline
mkdir -p "$WORK" "$DEST"
npm install --silent --no-audit --no-fund --prefix "$WORK" \
  @jupyter-widgets/html-manager@1.0.15 requirejs@2.3.8 mathjax@3.2.2 >/dev/null
NM="$WORK/node_modules"
cp "$NM/requirejs/require.js" "$DEST/require.js"
# embed-amd.js bundles the ipywidgets controls; its icon fonts sit beside it and load relative to it.
for f in "$NM"/@jupyter-widgets/html-manager/dist/*; do
  case "$f" in *.map|*.txt) ;; *) cp "$f" "$DEST/" ;; esac
done
rm -rf "$DEST/mathjax" && cp -r "$NM/mathjax/es5" "$DEST/mathjax"
echo "offline JavaScript in $DEST"
