package store

// Len is how many notes m keeps, past their time or not.
func (m *MemoryNotes) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID)
}
