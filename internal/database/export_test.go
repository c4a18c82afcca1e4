package database

// Begun reports whether the transaction has started: for the external
// tests of package database_test, which cannot see rt.tx.
func (rt *ReadTx) Begun() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.tx != nil
}
