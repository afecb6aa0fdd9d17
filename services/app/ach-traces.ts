// The kernel's port to trace numbers, kept by the payments module: a file asks for a range of trace
// sequences at its ODFI before it is written, so no trace is ever used twice there and a return or a
// notification of change names one entry only (services/payments/traces.ts).
import type { CommandContext } from './command-handler.js';

export interface AchTraceAccess {
  /**
   * The first of `count` trace sequences reserved for `fileId` at the ODFI (its routing number's first
   * 8 digits). Asked again for the same file (a job run again), the range it already took is answered.
   */
  reserve(odfi: string, fileId: string, count: number, ctx: CommandContext): Promise<number>;
}
