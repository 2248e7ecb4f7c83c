// The folder of the problem sets the repository does not ship (src/data/datasets.ts DATA_DIR_DATASETS): given by
// --data-dir (train, eval, sweep) or the environment's REMA_DATA_DIR. A set that is asked for but missing is
// refused before any model loads, naming the file looked for, where to download it and how to point at it.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATA_DIR_DATASETS, DATA_DIR_ORIGIN, type DataDirDataset } from '../data/datasets.ts';
import type { FileSource } from '../util/file-source.ts';
import { directoryFileSource } from './fs-source.ts';

/** The data folder: `flag` (--data-dir, RuntimeChoices.dataDir), else $REMA_DATA_DIR, else none. */
export function dataDir(flag: string | undefined): string | null {
  const dir = flag ?? process.env.REMA_DATA_DIR;
  return dir ? resolve(dir) : null;
}

/** The data folder (`flag`, else $REMA_DATA_DIR) as a FileSource after checking that every named set is in it;
 *  throws the download advice when one is not. */
export function dataDirSource(names: readonly DataDirDataset[], flag: string | undefined): FileSource | undefined {
  if (names.length === 0) return undefined;
  const dir = dataDir(flag);
  for (const name of names) {
    const { file, what } = DATA_DIR_DATASETS[name];
    if (dir !== null && existsSync(join(dir, file))) continue;
    const where =
      dir === null
        ? `no data folder is given (--data-dir DIR or REMA_DATA_DIR), so ${file} was not looked for`
        : `looked for ${join(dir, file)}, which does not exist`;
    throw new Error(
      `dataset "${name}" (${what}) is not shipped with the playground: ${where}. ` +
        `Download ${file} from ${DATA_DIR_ORIGIN} into a folder DIR (as DIR/${file}) and pass --data-dir DIR or set REMA_DATA_DIR=DIR.`,
    );
  }
  return directoryFileSource(dir!, dir!);
}
