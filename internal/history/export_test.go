package history

// LockKey is the retention lock, for the tests of package history_test.
const LockKey = lockKey
