package server

// zsetCommands are the SORTED SET family (added when the library has it).
func zsetCommands() []*Command { return nil }
