#!/usr/bin/env -S node --max-old-space-size=192 --max-semi-space-size=16
// The `emporium` command: runs the TypeScript sources through tsx, so there is no build step.
//
// The heap caps are part of the command because V8 takes them only at start. Below about 200 MB V8
// collects garbage early instead of growing the heap, which keeps the service within its memory
// budget through a whole-catalog sync (bench/README.md) at no measurable cost in throughput. The
// young generation is held to 16 MB semi-spaces, Node 20's size: Node 24 sizes them from the heap
// limit, up to 64 MB, which took the service's peak RSS from 223 to 317 MB in the same benchmark.
// The live heap is bounded: the caches keep their data off the heap, in Buffers. For other caps,
// run `node --max-old-space-size=N --max-semi-space-size=M packages/server/bin/emporium.js serve`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
