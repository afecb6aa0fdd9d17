// The kernel's port to the cut-off windows' shared files, kept by the payments module (decision
// 0040): an approval's file is written as one batch of its company's file for the window it is made
// for, and what a person downloads or the bank receives is that shared file. The approvals module
// places its files and reads the shared text through it, without importing the payments module.
import type { CommandContext } from './command-handler.js';

/** Where an approval's file sits: its window's shared file and its batch there. */
export interface WindowPlace {
  /** How the window's files go: downloaded by a person, or uploaded over SFTP. */
  via: 'manual' | 'sftp';
  /** The window's instant (ISO). */
  windowAt: string;
  /** The shared file's number within the window. */
  file: number;
  /** The id its file id modifier is taken for, once. */
  windowFileId: string;
  batch: number;
  /** The shared file's creation instant: every batch of it is written with this header. */
  createdAt: Date;
}

export interface SharedFile {
  text: string;
  /** The approvals' files whose batches it carries, by batch. */
  batches: ReadonlyArray<{ batch: number; approvalId: string; fileId: string; version: number }>;
}

export interface AchWindowAccess {
  /**
   * Places an approval's file (one version) in its company's next cut-off window after `requestedAt`
   * (the instant the file was asked for: a job run again finds the same place), the Same-Day rule
   * included. Asked again for the same file, the place it has is answered.
   */
  place(
    input: {
      companyId: number;
      approvalId: string;
      fileId: string;
      version: number;
      sameDay: boolean;
      requestedAt: Date;
    },
    ctx: CommandContext,
  ): Promise<WindowPlace>;
  /**
   * The shared file that carries the approval's file, sealed first for `reason` (its batches then
   * fixed: those whose approval still waits for the bank with that file). Null when the file is in
   * no shared file (a newer version took its place before the file was sealed).
   */
  sharedFile(
    input: {
      companyId: number;
      via: 'manual' | 'sftp';
      windowAt: string;
      file: number;
      approvalId: string;
      fileId: string;
    },
    reason: 'download' | 'upload',
    ctx: CommandContext,
  ): Promise<SharedFile | null>;
}
