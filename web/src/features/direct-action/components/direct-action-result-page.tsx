// The public result page of e-mail links (spec 2 §2): standalone, no sign-in, no shell.

export function DirectActionResultPage() {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-muted/50 px-4 py-12">
      <div className="w-full max-w-md rounded-xl border bg-card p-8 text-center shadow-sm">
        <h1 className="text-2xl font-semibold tracking-tight">Direct Action Result</h1>
        <p className="mt-2 text-sm text-muted-foreground">
          This page shows the outcome of an action taken from an email link.
        </p>
      </div>
    </main>
  );
}
