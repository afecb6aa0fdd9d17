// Files to and from the API with the session: an upload that reports its progress (fetch cannot
// yet), and a download saved under the server's file name. Both answer errors as ApiError, like
// every other call, and renew the token once on a 401.
import type { ApiEnvelope } from '../types/api';
import { authFetch, refreshAccessToken } from './api-client';
import { CLIENT_ENVIRONMENT, CLIENT_ENVIRONMENT_HEADER } from './constants';
import { ApiError, buildErrorMessage } from './errors';
import { tokenStorage } from './token-storage';

const UPLOAD_TIMEOUT_MS = 120_000;

function sendForm(
  path: string,
  form: FormData,
  token: string | null,
  onProgress: (percent: number) => void,
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    xhr.timeout = UPLOAD_TIMEOUT_MS;
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader(CLIENT_ENVIRONMENT_HEADER, CLIENT_ENVIRONMENT);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0)
        onProgress(Math.min(100, Math.round((e.loaded / e.total) * 100)));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      resolve({ status: xhr.status, body });
    };
    xhr.onerror = () => reject(new ApiError('Network error', { kind: 'network' }));
    xhr.ontimeout = () => reject(new ApiError('The upload timed out', { kind: 'timeout' }));
    xhr.send(form);
  });
}

/** POST multipart with upload progress in whole percents; resolves with the envelope. */
export async function uploadForm<T>(
  path: string,
  form: FormData,
  onProgress: (percent: number) => void,
  fallbackMessage?: string,
): Promise<ApiEnvelope<T>> {
  let answer = await sendForm(path, form, tokenStorage.getAccessToken(), onProgress);
  if (answer.status === 401) answer = await sendForm(path, form, await refreshAccessToken(), onProgress);
  const body = answer.body as ApiEnvelope<T> | null;
  if (answer.status < 200 || answer.status >= 300 || !body || body.success === false)
    throw new ApiError(buildErrorMessage(body, fallbackMessage), { status: answer.status, body });
  return body;
}

/** The file name from Content-Disposition, else the fallback. */
export function attachmentName(header: string | null, fallback: string): string {
  const match = header?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i);
  return match ? decodeURIComponent(match[1]) : fallback;
}

/** GET a file and hand it to the browser as a download. */
export async function downloadFile(
  path: string,
  fallbackName: string,
  fallbackMessage?: string,
): Promise<string> {
  const response = await authFetch(path, { method: 'GET', timeoutMs: UPLOAD_TIMEOUT_MS });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new ApiError(buildErrorMessage(body, fallbackMessage), { status: response.status, body });
  }
  const name = attachmentName(response.headers.get('content-disposition'), fallbackName);
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return name;
}
