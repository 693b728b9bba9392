#!/usr/bin/env -S node --max-old-space-size=192
// The `emporium` command: runs the TypeScript sources through tsx, so there is no build step.
//
// The heap cap is part of the command because V8 takes it only at start. Below about 200 MB V8
// collects garbage early instead of growing the heap, which keeps the service within its memory
// budget through a whole-catalog sync (bench/README.md) at no measurable cost in throughput. The
// live heap is bounded: the caches keep their data off the heap, in Buffers. For another cap,
// run `node --max-old-space-size=N packages/server/bin/emporium.js serve`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
