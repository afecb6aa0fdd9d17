// How the offline tools end: 0 when done, 1 with the message of a refusal (the operator's to read),
// or the whole stack of anything unexpected.
export function runCli(main: () => Promise<void>, isRefusal: (err: unknown) => boolean) {
  main().then(
    () => process.exit(0),
    (err: Error) => {
      console.error(isRefusal(err) ? err.message : (err?.stack ?? String(err)));
      process.exit(1);
    },
  );
}
