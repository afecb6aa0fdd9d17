// What the companies' commands share: the company's state from its stream, a command on it or on the
// `companynames` stream, and the answer read back from the read model.
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import { type Actor, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError } from '../shared/errors.js';
import { companyDecider } from './company-decider.js';
import { type CompanyDto, findCompany } from './company-rows.js';
import { COMPANY_NAMES_STREAM, namesDecider } from './names-decider.js';

/** Answers a write from the companies read model once it has applied the write's events. */
export function answer(app: AppServices, id: number, position: Position | null): Promise<CompanyDto> {
  return answerAfterWrite(app, position, ['companies'], () => findCompany(app, id));
}

export const lastOf = (...positions: Array<Position | null | undefined>) =>
  positions.filter((p): p is Position => !!p).at(-1) ?? null;

export async function load(app: AppServices, companyId: number) {
  const { state } = await app.commands.load(companyDecider, companyDecider.streamId(companyId));
  if (!state.exists || state.deleted) throw new AppError('NOT_FOUND', 'Company not found');
  return state;
}

export function names(app: AppServices, actor: Actor, command: Parameters<typeof namesDecider.decide>[0]) {
  return app.commands.handle(namesDecider, COMPANY_NAMES_STREAM, command, commandContext(actor));
}

export function run(
  app: AppServices,
  actor: Actor,
  companyId: number,
  command: Parameters<typeof companyDecider.decide>[0],
) {
  return app.commands.handle(
    companyDecider,
    companyDecider.streamId(companyId),
    command,
    commandContext(actor),
  );
}
