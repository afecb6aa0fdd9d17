// Toast state (shadcn's use-toast, trimmed): one toast at a time, 5 s by default.
import { type ReactNode, useSyncExternalStore } from 'react';
import { TOAST_DURATION_MS } from '../../lib/constants';

export const TOAST_LIMIT = 1;
/** How long a dismissed toast stays mounted for its closing animation. */
const REMOVE_DELAY_MS = 300;

export type ToastVariant = 'default' | 'destructive' | 'success';

export interface ToastInput {
  title?: ReactNode;
  description?: ReactNode;
  variant?: ToastVariant;
  /** Milliseconds; 5 s unless given. */
  duration?: number;
  action?: ReactNode;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
}

let toasts: ToastItem[] = [];
let counter = 0;
const listeners = new Set<() => void>();
const removalTimers = new Map<string, ReturnType<typeof setTimeout>>();

function emit(next: ToastItem[]) {
  toasts = next;
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: string) {
  if (removalTimers.has(id)) return;
  removalTimers.set(
    id,
    setTimeout(() => {
      removalTimers.delete(id);
      emit(toasts.filter((t) => t.id !== id));
    }, REMOVE_DELAY_MS),
  );
}

export function dismissToast(id?: string) {
  emit(toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
  for (const t of toasts) if (!t.open) scheduleRemoval(t.id);
}

/** Shows a toast; a newer one replaces the one on screen. */
export function toast(input: ToastInput) {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const id = `toast-${counter}`;
  const item: ToastItem = { duration: TOAST_DURATION_MS, variant: 'default', ...input, id, open: true };
  emit([item, ...toasts].slice(0, TOAST_LIMIT));
  return { id, dismiss: () => dismissToast(id) };
}

/** A failed action: destructive toast titled 'Error' with the message. */
toast.error = (message: ReactNode, title: ReactNode = 'Error') =>
  toast({ variant: 'destructive', title, description: message });

toast.success = (title: ReactNode, description?: ReactNode) =>
  toast({ variant: 'success', title, description });

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

const getSnapshot = () => toasts;

export function useToasts() {
  return useSyncExternalStore(subscribe, getSnapshot, getSnapshot);
}

/** For tests: forget every toast. */
export function resetToasts() {
  for (const timer of removalTimers.values()) clearTimeout(timer);
  removalTimers.clear();
  emit([]);
}
