import path from 'node:path';
import type { Config } from './config.ts';
import { FileImageStorage, type ImageStorage } from './media/storage.ts';

/**
 * The image storage the configuration names: a folder under DATA_DIR, or an S3 bucket. Shared by
 * the service (main.ts) and the CLI (cli.ts), which must write where the service reads. The S3
 * client is loaded only when configured, so a command on a folder starts without it.
 */
export async function imageStorage(config: Config): Promise<ImageStorage> {
  const { imageStorage: settings } = config;
  if (settings.kind === 's3') {
    const { S3ImageStorage } = await import('./media/s3-storage.ts');
    return new S3ImageStorage(settings);
  }
  return new FileImageStorage(path.join(config.dataDir, 'images'));
}
