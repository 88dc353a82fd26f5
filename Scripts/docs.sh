#!/usr/bin/env bash
# Builds Burrow's documentation (the DocC catalog Sources/Burrow/Burrow.docc and the public
# API's doc comments) with the toolchain's own `docc`, from the symbol graphs the compiler emits,
# and BurrowSync's (Sources/BurrowSync/BurrowSync.docc) beside it.
#
#   Scripts/docs.sh            build them into .build/docs and .build/docs-sync (static sites);
#                              warnings fail
#   Scripts/docs.sh preview    build Burrow's and serve it at http://localhost:8080/documentation/burrow
set -euo pipefail
cd "$(dirname "$0")/.."

# A build path of its own: emitting symbol graphs changes the compiler's flags, and sharing
# .build/debug would make the next `swift build` compile everything again. The compiler writes a
# module's graph when it compiles the module, so the graphs stay between runs.
graphs="$PWD/.build/docs-build/symbol-graphs"
mkdir -p "$graphs"
swift build --build-path .build/docs-build --target BurrowSync \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
# What docc reads: Burrow's graphs, with the store's public types that `import Burrow` brings
# (Sources/Burrow/Exports.swift) documented as Burrow's. The engine's and the store's own
# graphs are the package's business (they have no other public API).
docc_graphs="$PWD/.build/docs-build/docc-graphs"
rm -rf "$docc_graphs"
mkdir -p "$docc_graphs"
cp "$graphs"/Burrow@*.symbols.json "$docc_graphs"/
swift Scripts/reexported-symbols.swift "$graphs" "$docc_graphs" ObjectId Decimal128 Property PropertyType CollectionKind

options=(
    Sources/Burrow/Burrow.docc
    --fallback-display-name Burrow
    --fallback-bundle-identifier org.burrow.Burrow
    --additional-symbol-graph-dir "$docc_graphs"
)
if [ "${1:-}" = preview ]; then
    exec docc preview "${options[@]}" --output-dir .build/docs-preview
fi
rm -rf .build/docs
docc convert "${options[@]}" --output-path .build/docs --transform-for-static-hosting --warnings-as-errors

# BurrowSync: its own graph; the Burrow types it names link as text.
sync_graphs="$PWD/.build/docs-build/docc-sync-graphs"
rm -rf "$sync_graphs" .build/docs-sync
mkdir -p "$sync_graphs"
cp "$graphs"/BurrowSync.symbols.json "$sync_graphs"/
docc convert Sources/BurrowSync/BurrowSync.docc --fallback-display-name BurrowSync \
    --fallback-bundle-identifier org.burrow.BurrowSync --additional-symbol-graph-dir "$sync_graphs" \
    --output-path .build/docs-sync --transform-for-static-hosting --warnings-as-errors
echo "The documentation is in .build/docs and .build/docs-sync; 'Scripts/docs.sh preview' serves Burrow's."
