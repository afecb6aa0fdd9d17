import * as DialogPrimitive from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import type { ComponentProps } from 'react';
import { cn } from '../../lib/utils';

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogPortal = DialogPrimitive.Portal;
export const DialogClose = DialogPrimitive.Close;

export function DialogOverlay({ className, ...props }: ComponentProps<typeof DialogPrimitive.Overlay>) {
  return (
    <DialogPrimitive.Overlay
      data-slot="dialog-overlay"
      className={cn(
        'fixed inset-0 z-50 bg-black/50 data-[state=open]:animate-[fade-in_150ms_ease-out]',
        className,
      )}
      {...props}
    />
  );
}

/**
 * The dialog's box fits the window: never taller than the viewport (less a margin), its body scrolls
 * inside it, and the header (title) and footer (actions) stay in view while it does, sticky at the
 * top and bottom of the scrolling area; the close button sits outside that area. A dialog that wraps
 * its header, fields and footer in a form behaves the same (the form is as tall as the body).
 */
export function DialogContent({
  className,
  children,
  showCloseButton = true,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & { showCloseButton?: boolean }) {
  return (
    <DialogPortal>
      <DialogOverlay />
      <DialogPrimitive.Content
        data-slot="dialog-content"
        className={cn(
          'fixed top-1/2 left-1/2 z-50 flex max-h-[calc(100dvh-2rem)] w-full max-w-[calc(100%-2rem)] -translate-x-1/2 -translate-y-1/2 flex-col overflow-hidden rounded-lg border bg-background shadow-lg outline-none data-[state=open]:animate-[fade-in_150ms_ease-out] sm:max-w-lg',
          className,
        )}
        {...props}
      >
        <DialogBody>{children}</DialogBody>
        {showCloseButton ? (
          <DialogPrimitive.Close className="absolute top-4 right-4 z-20 rounded-xs bg-background opacity-70 transition-opacity hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none">
            <X className="size-4" aria-hidden="true" />
            <span className="sr-only">Close</span>
          </DialogPrimitive.Close>
        ) : null}
      </DialogPrimitive.Content>
    </DialogPortal>
  );
}

/**
 * The scrolling area of a dialog or alert dialog. Its top and bottom margins are borders, not
 * padding, so nothing scrolled shows above the sticky header or below the sticky footer.
 */
export function DialogBody({ className, ...props }: ComponentProps<'div'>) {
  return (
    <div
      data-slot="dialog-body"
      className={cn(
        'grid min-h-0 gap-4 overflow-y-auto overscroll-contain border-y-[1.5rem] border-transparent px-6',
        className,
      )}
      {...props}
    />
  );
}

/**
 * Header and footer stay in view while the body scrolls (see DialogContent); their background
 * reaches into the gap beside them (padding offset by a negative margin), so scrolled lines pass
 * under them with a margin instead of touching the title or the buttons.
 */
export const DIALOG_HEADER =
  'sticky top-0 z-10 -mb-3 flex flex-col gap-2 bg-background pb-3 text-center sm:text-left';
export const DIALOG_FOOTER =
  'sticky bottom-0 z-10 -mt-3 flex flex-col-reverse gap-2 bg-background pt-3 sm:flex-row sm:justify-end';

export function DialogHeader({ className, ...props }: ComponentProps<'div'>) {
  return <div data-slot="dialog-header" className={cn(DIALOG_HEADER, className)} {...props} />;
}

export function DialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return <div data-slot="dialog-footer" className={cn(DIALOG_FOOTER, className)} {...props} />;
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cn('text-lg leading-none font-semibold', className)} {...props} />;
}

export function DialogDescription({
  className,
  ...props
}: ComponentProps<typeof DialogPrimitive.Description>) {
  return (
    <DialogPrimitive.Description className={cn('text-sm text-muted-foreground', className)} {...props} />
  );
}
