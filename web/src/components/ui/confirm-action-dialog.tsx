// A destructive action asked for first: the question, then the action run once, with its outcome
// as a toast. While it runs the dialog stays open and cannot be dismissed, so a second click or an
// Escape cannot start it twice or hide its error. Every delete, forget and clear of the features
// asks this way; the payment actions to come (a file marked as uploaded) will too.
import { type ReactNode, useState } from 'react';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from './alert-dialog';
import { toast } from './use-toast';

export interface ConfirmActionDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  /** The action button's label, and what it says while the action runs. */
  actionLabel: string;
  busyLabel: string;
  /** The action. Its answer's message is the success toast, or `successMessage` when it has none. */
  run: () => Promise<{ message?: string }>;
  successMessage: string;
  /** After success, once the dialog has closed. */
  onDone?: () => void;
  /** The error toast: its title, and its text when the error carries none. */
  errorTitle?: string;
  errorFallback?: string;
}

export function ConfirmActionDialog({
  open,
  onOpenChange,
  title,
  description,
  actionLabel,
  busyLabel,
  run,
  successMessage,
  onDone,
  errorTitle,
  errorFallback = 'An error occurred',
}: ConfirmActionDialogProps) {
  const [busy, setBusy] = useState(false);
  return (
    <AlertDialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            variant="destructive"
            disabled={busy}
            onClick={async (event) => {
              // The dialog closes itself on success only, not on the click.
              event.preventDefault();
              setBusy(true);
              try {
                const res = await run();
                toast.success(res.message ?? successMessage);
                onOpenChange(false);
                onDone?.();
              } catch (err) {
                toast.error(err instanceof Error ? err.message : errorFallback, errorTitle);
              } finally {
                setBusy(false);
              }
            }}
          >
            {busy ? busyLabel : actionLabel}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
