// One uploaded file of a multipart request (field `file`), read whole within the route's size limit:
// anything else is a 400 in the envelope that says what to send instead. The routes that take a file
// (a vendors' CSV, a bank's return file) register @fastify/multipart in their own scope with the
// limit, and read the file here.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../shared/errors.js';

export async function uploadedFile(
  req: FastifyRequest,
  limitWords: string,
): Promise<{ filename: string; content: Buffer }> {
  const tooLarge = `The file is larger than ${limitWords}`;
  if (!req.isMultipart()) throw new AppError('VALIDATION', 'Send the file as multipart/form-data');
  const part = await req.file();
  if (!part) throw new AppError('VALIDATION', 'No file was sent (field "file")');
  const content = await part.toBuffer().catch((err: unknown) => {
    throw new AppError(
      'VALIDATION',
      /too large|limit/i.test(String(err)) ? tooLarge : 'The upload did not complete',
    );
  });
  if (part.file.truncated) throw new AppError('VALIDATION', tooLarge);
  return { filename: part.filename, content };
}
