import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Where image files live: by image id, then the name of the file (`original`, `500w`). */
export interface ImageStorage {
  /** Writes the file whole or not at all: a crash never leaves a half file under its name. */
  put(imageId: string, name: string, data: Buffer | Readable): Promise<void>;
  /** The file's bytes as a stream and its size, or undefined when there is no such file. */
  open(imageId: string, name: string): Promise<{ stream: Readable; size: number } | undefined>;
  /**
   * The file for a decoder: a local path where the storage has one (no copy in memory), else its
   * bytes; undefined when there is no such file.
   */
  source(imageId: string, name: string): Promise<string | Buffer | undefined>;
  /** Removes every file of the image; nothing to remove is not an error. */
  remove(imageId: string): Promise<void>;
  /**
   * Every image with files and when its files last changed, for the sweep of orphans: streamed, so
   * that a store of millions of images is never held in memory.
   */
  imageFolders(): AsyncIterable<ImageFolder>;
  /** Throws unless the storage can be reached now (readiness): the folder made and written, the bucket answering. */
  check(): Promise<void>;
  /**
   * The same storage for files of another kind, under a folder (a key prefix) of this one named
   * `folder`: downloads live in `downloads/`. The folder's name is not an image id, so the image
   * sweep (imageFolders) never lists it, nor removes anything in it.
   */
  within(folder: string): ImageStorage;
}

export interface ImageFolder {
  imageId: string;
  modifiedAt: Date;
}

export const IMAGE_ID = /^[a-f0-9]{24}$/;
/** A folder of other files beside the images': lowercase letters, never 24 hex characters. */
const FOLDER = /^[a-z]{1,20}$/;

/** The name of a folder within(): checked, since it must never read as an image's. */
export function checkFolder(folder: string): string {
  if (!FOLDER.test(folder) || IMAGE_ID.test(folder)) throw new Error(`not a storage folder: ${folder}`);
  return folder;
}
const NAME = /^(original|\d{1,5}w)$/;

/** Names are built from ids only, never from user input; checked all the same before any use. */
export function checkFileName(imageId: string, name: string): void {
  if (!IMAGE_ID.test(imageId) || !NAME.test(name))
    throw new Error(`not an image file name: ${imageId}/${name}`);
}

/** Files under one folder (DATA_DIR/images by default); checked names never leave it. */
export class FileImageStorage implements ImageStorage {
  constructor(private readonly root: string) {}

  private file(imageId: string, name: string): string {
    checkFileName(imageId, name);
    return path.join(this.root, imageId, name);
  }

  async source(imageId: string, name: string): Promise<string | undefined> {
    const file = this.file(imageId, name);
    try {
      await fs.promises.access(file, fs.constants.R_OK);
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  within(folder: string): ImageStorage {
    return new FileImageStorage(path.join(this.root, checkFolder(folder)));
  }

  async check(): Promise<void> {
    // Made on first use, like the image folders under it.
    await fs.promises.mkdir(this.root, { recursive: true });
    await fs.promises.access(this.root, fs.constants.W_OK);
  }

  async put(imageId: string, name: string, data: Buffer | Readable): Promise<void> {
    const target = this.file(imageId, name);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
    try {
      if (!Buffer.isBuffer(data)) await pipeline(data, fs.createWriteStream(temporary, { flags: 'wx' }));
      const handle = await fs.promises.open(temporary, Buffer.isBuffer(data) ? 'wx' : 'r+');
      try {
        if (Buffer.isBuffer(data)) await handle.writeFile(data);
        // Flushed before the rename, so the name only ever points at a complete file.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await fs.promises.rename(temporary, target);
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
  }

  async open(imageId: string, name: string): Promise<{ stream: Readable; size: number } | undefined> {
    const file = this.file(imageId, name);
    try {
      const handle = await fs.promises.open(file, 'r');
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async remove(imageId: string): Promise<void> {
    if (!IMAGE_ID.test(imageId)) throw new Error(`not an image id: ${imageId}`);
    await fs.promises.rm(path.join(this.root, imageId), { recursive: true, force: true });
  }

  async *imageFolders(): AsyncGenerator<ImageFolder> {
    let folders: fs.Dir;
    try {
      folders = await fs.promises.opendir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for await (const entry of folders) {
      if (!IMAGE_ID.test(entry.name)) continue;
      const stat = await fs.promises.stat(path.join(this.root, entry.name)).catch(() => undefined);
      if (stat) yield { imageId: entry.name, modifiedAt: stat.mtime };
    }
  }
}
