// Makes the media folder (RINGHOOK_MEDIA_DIR, or the data dir's media/) and its speech folder, and
// sets their modes and those of speech files an older version left readable by everyone.
import fs from 'node:fs';
import path from 'node:path';
import { folderMode, type MediaModes } from '../core/speech/media-modes.js';

/** The speech folder inside it. */
export function prepareMediaDir(mediaDir: string, modes: MediaModes): string {
  const speech = path.join(mediaDir, 'speech');
  fs.mkdirSync(speech, { recursive: true, mode: modes.dir });
  for (const dir of [mediaDir, speech]) fs.chmodSync(dir, folderMode(fs.statSync(dir).mode, modes.dir));
  for (const name of fs.readdirSync(speech)) {
    if (!name.endsWith('.wav')) continue;
    const file = path.join(speech, name);
    try {
      if ((fs.statSync(file).mode & 0o777) !== modes.file) fs.chmodSync(file, modes.file);
    } catch {
      // Removed meanwhile by the cache's cleanup: nothing to set.
    }
  }
  return speech;
}
