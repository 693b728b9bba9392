import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The temporary folders a test file makes, removed together in its `after`. */
export class TempFolders {
  readonly made: string[] = [];

  /** A new folder of mode 0700 (as mktemp -d makes it) under the system's temporary folder. */
  make(prefix: string): string {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.made.push(folder);
    return folder;
  }

  removeAll(): void {
    for (const folder of this.made) fs.rmSync(folder, { recursive: true, force: true });
  }
}
