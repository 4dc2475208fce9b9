import fs from 'node:fs';
import path from 'node:path';
import type { FinishedRun } from '@loadout/jobs';
import { removeTestdirs, testdir } from '@loadout/files/testing';
import { TaskInputSchemas } from '@loadout/tasks';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_OUTPUT_FILE_BYTES, MAX_OUTPUT_FILES, readOutputFiles } from './taskOutputFiles.js';
import { TaskOutputInvalidError, taskToolResult } from './toolOutput.js';

afterEach(() => removeTestdirs());

/** The first bytes of a real 1×1 PNG: enough for its signature to be known. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
/** A real WAV of four silent 8-bit mono samples: the RIFF header, its `fmt ` chunk and its `data` chunk. */
const WAV = wav([128, 128, 128, 128]);

function wav(samples: readonly number[]): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(8000, 28); // byte rate
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, Buffer.from(samples)]);
}

/** A job's output folder holding `files` (name → bytes or text), beside a secret outside it. */
function outputFolder(files: Record<string, string | Buffer>): { folder: string; outside: string } {
  const base = testdir({ 'secret.txt': 'not for the client', output: {} });
  const folder = path.join(base, 'output');
  for (const [name, data] of Object.entries(files)) fs.writeFileSync(path.join(folder, name), data);
  return { folder, outside: path.join(base, 'secret.txt') };
}

describe('files a task leaves in its output folder', () => {
  it('become image content (type from the bytes) and resources (text, or base64 when not text), in name order', () => {
    const { folder } = outputFolder({
      'chart.png': PNG,
      'photo.bin': JPEG,
      'report.md': '# Done\n',
      'data.csv': 'a,b\n1,2\n',
      'raw.dat': Buffer.from([0, 1, 2, 255]),
      '.scratch': 'hidden names are not handed over',
    });
    const read = readOutputFiles(folder, 7);
    expect(read).toEqual({
      content: [
        { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'loadout://jobs/7/output/data.csv', mimeType: 'text/csv', text: 'a,b\n1,2\n' } },
        { type: 'image', data: JPEG.toString('base64'), mimeType: 'image/jpeg' },
        { type: 'resource', resource: { uri: 'loadout://jobs/7/output/raw.dat', mimeType: 'application/octet-stream', blob: 'AAEC/w==' } },
        { type: 'resource', resource: { uri: 'loadout://jobs/7/output/report.md', mimeType: 'text/markdown', text: '# Done\n' } },
      ],
    });
  });

  it('become audio content for a sound (WAV, MP3, Ogg, FLAC by their bytes), and a file named as a sound it is not is refused', () => {
    const { folder } = outputFolder({ 'tone.wav': WAV, 'clip.bin': Buffer.from('ID3\u0004\u0000rest-of-tag', 'latin1') });
    expect(readOutputFiles(folder, 2)).toEqual({
      content: [
        { type: 'audio', data: Buffer.from('ID3\u0004\u0000rest-of-tag', 'latin1').toString('base64'), mimeType: 'audio/mpeg' },
        { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' },
      ],
    });
    expect(readOutputFiles(outputFolder({ 'fake.wav': 'not a sound' }).folder, 1)).toEqual({
      problem: 'output "fake.wav" is named as audio/wav but its bytes are not one',
    });
  });

  it('is nothing when the folder is empty or was never made', () => {
    expect(readOutputFiles(outputFolder({}).folder, 1)).toEqual({ content: [] });
    expect(readOutputFiles(path.join(testdir({}), 'missing'), 1)).toEqual({ content: [] });
  });

  it('refuses a link (even to a file beside the folder), a folder, a file named as an image it is not, and too much', () => {
    const linked = outputFolder({ 'ok.txt': 'fine' });
    fs.symlinkSync(linked.outside, path.join(linked.folder, 'leak.txt'));
    expect(readOutputFiles(linked.folder, 1)).toEqual({ problem: expect.stringContaining('"leak.txt" is not a regular file') });

    const nested = outputFolder({});
    fs.mkdirSync(path.join(nested.folder, 'more'));
    expect(readOutputFiles(nested.folder, 1)).toEqual({ problem: expect.stringContaining('"more" is not a regular file') });

    expect(readOutputFiles(outputFolder({ 'fake.png': '<script>' }).folder, 1)).toEqual({
      problem: 'output "fake.png" is named as image/png but its bytes are not one',
    });
    expect(readOutputFiles(outputFolder({ 'fake.pdf': 'plain' }).folder, 1)).toEqual({
      problem: 'output "fake.pdf" is named as application/pdf but its bytes are not one',
    });

    const big = outputFolder({ 'big.bin': Buffer.alloc(MAX_OUTPUT_FILE_BYTES + 1) });
    expect(readOutputFiles(big.folder, 1)).toEqual({ problem: `output "big.bin" is larger than ${MAX_OUTPUT_FILE_BYTES} bytes` });

    const many = outputFolder(Object.fromEntries(Array.from({ length: MAX_OUTPUT_FILES + 1 }, (_, i) => [`f${i}.txt`, 'x'])));
    expect(readOutputFiles(many.folder, 1)).toEqual({ problem: expect.stringContaining(`at most ${MAX_OUTPUT_FILES} are handed over`) });
  });

  it("follow a finished run's text in its tool result, and a refused folder fails the call with a coded error", () => {
    const { folder } = outputFolder({ 'chart.png': PNG });
    const run = { ...finishedJob(3), outputFolder: folder } satisfies FinishedRun;
    const task = { dirName: 'plot', outputSchema: null, outputSchemaError: null };
    expect(taskToolResult(run, task, new TaskInputSchemas())).toEqual({
      content: [
        { type: 'text', text: 'drew it\n' },
        { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
      ],
      _meta: { 'loadout/jobId': 3, 'loadout/status': 'succeeded' },
    });
    fs.writeFileSync(path.join(folder, 'fake.gif'), 'GIF? no');
    expect(() => taskToolResult(run, task, new TaskInputSchemas())).toThrow(TaskOutputInvalidError);
    expect(() => taskToolResult(run, task, new TaskInputSchemas())).toThrow('task plot (job 3): output "fake.gif" is named as image/gif');
  });
});

function finishedJob(id: number): Omit<FinishedRun, 'outputFolder'> {
  return {
    id,
    taskDirName: 'plot',
    origin: 'mcp',
    project: null,
    input: {},
    status: 'succeeded',
    exitCode: 0,
    output: 'drew it\n',
    stderr: '',
    error: null,
    attempts: 1,
    maxAttempts: 1,
    pipelineId: null,
    step: null,
    createdAt: '2026-12-05T00:00:00.000Z',
    startedAt: '2026-12-05T00:00:00.000Z',
    finishedAt: '2026-12-05T00:00:01.000Z',
  };
}
