// The payment half's mutations staff use signed in: regenerateNacha, generatePennyTest, retryQbSync.
export {};
