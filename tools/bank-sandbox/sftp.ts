// One SFTP session of an ODFI's user: the ODFI's root with /inbox (uploads) and /outbox (the bank's
// answers, to read and delete), nothing above it. An upload is the bank's on its close; a name
// ending .part, .tmp or .filepart is still on its way and becomes the bank's when renamed.
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import ssh2, { type Attributes, type FileEntry, type SFTPWrapper } from 'ssh2';
import type { Bank } from './bank.js';
import type { BankState } from './state.js';

// ssh2 is CommonJS: its parts come from the default export.
const { utils } = ssh2;

const { STATUS_CODE, OPEN_MODE } = utils.sftp;
const inProgress = (name: string) => /\.(part|tmp|filepart)$/i.test(name);

type Place =
  | { kind: 'root' }
  | { kind: 'box'; box: 'inbox' | 'outbox' }
  | { kind: 'file'; box: 'inbox' | 'outbox'; name: string };

/** A client's path inside the ODFI's root, or null when it climbs out of it or goes deeper than a box. */
export function placeOf(p: string): { virtual: string; place: Place | null } | null {
  const segments: string[] = [];
  for (const s of p.split('/')) {
    if (!s || s === '.') continue;
    if (s === '..') {
      if (!segments.length) return null;
      segments.pop();
    } else segments.push(s);
  }
  const virtual = `/${segments.join('/')}`;
  const [box, name, ...rest] = segments;
  if (!box) return { virtual, place: { kind: 'root' } };
  if ((box !== 'inbox' && box !== 'outbox') || rest.length) return { virtual, place: null };
  return { virtual, place: name ? { kind: 'file', box, name } : { kind: 'box', box } };
}

type Handle =
  | { kind: 'file'; fd: number; box: 'inbox' | 'outbox'; name: string; upload: boolean }
  | { kind: 'dir'; entries: FileEntry[] };

const attrsOf = (s: Stats): Attributes => ({
  mode: s.mode,
  uid: 0,
  gid: 0,
  size: s.size,
  atime: Math.floor(s.atimeMs / 1000),
  mtime: Math.floor(s.mtimeMs / 1000),
});

const longname = (name: string, s: Stats) => {
  const d = new Date(s.mtimeMs).toUTCString().split(' ');
  const kind = s.isDirectory() ? 'drwxr-x---' : '-rw-r-----';
  return `${kind} 1 bank bank ${String(s.size).padStart(8)} ${d[2]} ${d[1]} ${d[4].slice(0, 5)} ${name}`;
};

export function serveSftp(
  sftp: SFTPWrapper,
  ctx: { routing: string; state: BankState; bank: Bank; drop: () => void },
) {
  const { routing, state, bank } = ctx;
  const handles = new Map<number, Handle>();
  let nextHandle = 1;
  const real = (place: Place) =>
    place.kind === 'root'
      ? path.dirname(state.folder(routing, 'inbox'))
      : place.kind === 'box'
        ? state.folder(routing, place.box)
        : path.join(state.folder(routing, place.box), place.name);
  const handleOf = (buf: Buffer) => (buf.length === 4 ? handles.get(buf.readUInt32BE(0)) : undefined);
  const newHandle = (h: Handle) => {
    const id = nextHandle++;
    handles.set(id, h);
    const buf = Buffer.alloc(4);
    buf.writeUInt32BE(id);
    return buf;
  };
  const denied = (id: number, why = 'permission denied') =>
    sftp.status(id, STATUS_CODE.PERMISSION_DENIED, why);
  const resolve = (id: number, p: string): Place | null => {
    const r = placeOf(p);
    if (!r) {
      denied(id, 'outside your folders');
      return null;
    }
    if (!r.place) sftp.status(id, STATUS_CODE.NO_SUCH_FILE, 'no such file');
    return r.place;
  };
  const guard = (id: number, work: () => void) => {
    try {
      work();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      sftp.status(id, code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : STATUS_CODE.FAILURE, code ?? 'failure');
    }
  };
  /** An upload that is the bank's now: on its close, its rename, or its connection's end. */
  const land = (name: string) => {
    if (!inProgress(name)) bank.receive(routing, name);
  };

  sftp.on('REALPATH', (id, p) => {
    const r = placeOf(p);
    if (!r) return denied(id, 'outside your folders');
    sftp.name(id, [{ filename: r.virtual, longname: r.virtual, attrs: {} as Attributes }]);
  });
  const stat = (id: number, p: string) => {
    const place = resolve(id, p);
    if (place) guard(id, () => sftp.attrs(id, attrsOf(statSync(real(place)))));
  };
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('OPENDIR', (id, p) => {
    const place = resolve(id, p);
    if (!place) return;
    if (place.kind === 'file') return sftp.status(id, STATUS_CODE.FAILURE, 'not a folder');
    guard(id, () => {
      const dir = real(place);
      const entries = readdirSync(dir)
        .filter((n) => !n.startsWith('.'))
        .map((n) => {
          const s = statSync(path.join(dir, n));
          return { filename: n, longname: longname(n, s), attrs: attrsOf(s) };
        });
      sftp.handle(id, newHandle({ kind: 'dir', entries }));
    });
  });
  sftp.on('READDIR', (id, hb) => {
    const h = handleOf(hb);
    if (h?.kind !== 'dir') return sftp.status(id, STATUS_CODE.FAILURE, 'bad handle');
    if (!h.entries.length) return sftp.status(id, STATUS_CODE.EOF);
    const batch = h.entries;
    h.entries = [];
    sftp.name(id, batch);
  });
  sftp.on('OPEN', (id, p, flags) => {
    const place = resolve(id, p);
    if (!place) return;
    if (place.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE, 'not a file');
    const writing = (flags & (OPEN_MODE.WRITE | OPEN_MODE.CREAT | OPEN_MODE.TRUNC | OPEN_MODE.APPEND)) !== 0;
    if (!writing)
      return guard(id, () =>
        sftp.handle(
          id,
          newHandle({
            kind: 'file',
            fd: openSync(real(place), 'r'),
            box: place.box,
            name: place.name,
            upload: false,
          }),
        ),
      );
    if (place.box !== 'inbox') return denied(id, 'uploads go to /inbox');
    if (state.data.faults.refuseUploads > 0) {
      state.data.faults.refuseUploads--;
      state.save();
      return denied(id, 'permission denied');
    }
    if (bank.received(routing, place.name)) return denied(id, bank.refuseDuplicate(routing, place.name));
    guard(id, () =>
      sftp.handle(
        id,
        newHandle({
          kind: 'file',
          fd: openSync(real(place), 'w'),
          box: place.box,
          name: place.name,
          upload: true,
        }),
      ),
    );
  });
  sftp.on('WRITE', (id, hb, offset, data) => {
    const h = handleOf(hb);
    if (h?.kind !== 'file' || !h.upload) return sftp.status(id, STATUS_CODE.FAILURE, 'bad handle');
    guard(id, () => {
      writeSync(h.fd, data, 0, data.length, offset);
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on('READ', (id, hb, offset, length) => {
    const h = handleOf(hb);
    if (h?.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE, 'bad handle');
    guard(id, () => {
      const buf = Buffer.alloc(Math.min(length, 256 * 1024));
      const n = readSync(h.fd, buf, 0, buf.length, offset);
      if (n === 0) sftp.status(id, STATUS_CODE.EOF);
      else sftp.data(id, buf.subarray(0, n));
    });
  });
  sftp.on('FSTAT', (id, hb) => {
    const h = handleOf(hb);
    if (h?.kind !== 'file') return sftp.status(id, STATUS_CODE.FAILURE, 'bad handle');
    guard(id, () => sftp.attrs(id, attrsOf(statSync(path.join(state.folder(routing, h.box), h.name)))));
  });
  // Times and modes a client sets after an upload change nothing at the bank.
  sftp.on('SETSTAT', (id) => sftp.status(id, STATUS_CODE.OK));
  sftp.on('FSETSTAT', (id) => sftp.status(id, STATUS_CODE.OK));
  sftp.on('CLOSE', (id, hb) => {
    const h = handleOf(hb);
    if (!h) return sftp.status(id, STATUS_CODE.FAILURE, 'bad handle');
    handles.delete(hb.readUInt32BE(0));
    if (h.kind === 'dir') return sftp.status(id, STATUS_CODE.OK);
    guard(id, () => {
      closeSync(h.fd);
      if (h.upload) land(h.name);
      if (h.upload && !inProgress(h.name) && state.data.faults.dropAfterWrite > 0) {
        state.data.faults.dropAfterWrite--;
        state.save();
        return ctx.drop();
      }
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on('REMOVE', (id, p) => {
    const place = resolve(id, p);
    if (!place) return;
    if (place.kind !== 'file') return denied(id);
    // The bank's answers may be deleted once fetched; an upload it holds may not, a partial one may.
    if (place.box === 'inbox' && bank.received(routing, place.name))
      return denied(id, 'the bank keeps received files');
    guard(id, () => {
      unlinkSync(real(place));
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on('RENAME', (id, from, to) => {
    const a = resolve(id, from);
    if (!a) return;
    const b = resolve(id, to);
    if (!b) return;
    if (
      a.kind !== 'file' ||
      b.kind !== 'file' ||
      a.box !== 'inbox' ||
      b.box !== 'inbox' ||
      !inProgress(a.name)
    )
      return denied(id, 'only an upload in progress may be renamed');
    if (bank.received(routing, b.name)) return denied(id, bank.refuseDuplicate(routing, b.name));
    if (existsSync(real(b))) return sftp.status(id, STATUS_CODE.FAILURE, 'file exists');
    guard(id, () => {
      renameSync(real(a), real(b));
      land(b.name);
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on('MKDIR', (id) => denied(id, 'folders are the bank’s'));
  sftp.on('RMDIR', (id) => denied(id, 'folders are the bank’s'));
  for (const op of ['READLINK', 'SYMLINK', 'EXTENDED'])
    sftp.on(op, (id: number) => sftp.status(id, STATUS_CODE.OP_UNSUPPORTED));

  /** The connection ended with uploads still open: what was written has landed all the same. */
  return function ended() {
    for (const h of handles.values())
      if (h.kind === 'file')
        try {
          closeSync(h.fd);
          if (h.upload) land(h.name);
        } catch (err) {
          // No client is left to tell; the sandbox's own console is.
          process.stderr.write(
            `bank sandbox: an upload left open could not be received: ${(err as Error).message}\n`,
          );
        }
    handles.clear();
  };
}
