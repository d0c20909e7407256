package cli

import "flag"

// simModel holds the --model flag of `gopsim sim`.
type simModel struct{}

func (m *simModel) flags(fs *flag.FlagSet) {}
