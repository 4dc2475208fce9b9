import path from 'node:path';
import { Places } from '@loadout/kernel';
import { inject, injectable } from 'tsyringe';
import { trackedFs } from '@loadout/files';

/** The variable that tells a task's process the folder its files for the caller go in. */
export const OUTPUT_DIR_VARIABLE = 'LOADOUT_OUTPUT_DIR';

/**
 * Each job's output folder, `<data dir>/job-output/<job id>/`: where a task writes files (an image,
 * a report) meant for whoever asked for the run, told to the task as {@link OUTPUT_DIR_VARIABLE}.
 * Emptied as each attempt starts, so a retry never hands over what a failed attempt left; kept
 * with its job and removed once retention prunes the job. What is in it is only read, and checked,
 * by the face that hands it over (MCP turns it into image and resource content).
 */
@injectable()
export class JobOutputFolders {
  private readonly base: string;

  constructor(@inject(Places) places: Pick<Places, 'dataDir'>) {
    this.base = path.join(places.dataDir, 'job-output');
  }

  /** Where job `jobId`'s files are. */
  folderOf(jobId: number): string {
    return path.join(this.base, String(jobId));
  }

  /** Makes job `jobId`'s folder anew (empty, readable by this user only) for an attempt, and says where it is. */
  prepare(jobId: number): string {
    const folder = this.folderOf(jobId);
    trackedFs.rmSync(folder, { recursive: true, force: true });
    trackedFs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  }

  /** Removes the folders of jobs `stillStored` does not know any more; says how many went. */
  async removeGone(stillStored: (jobId: number) => Promise<boolean>): Promise<number> {
    let names: string[];
    try {
      names = trackedFs.readdirSync(this.base);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const jobId = /^[0-9]{1,15}$/.test(name) ? Number(name) : null;
      if (jobId !== null && (await stillStored(jobId))) continue;
      trackedFs.rmSync(path.join(this.base, name), { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }
}
