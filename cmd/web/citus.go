package main

import (
	"context"
	"flag"
	"fmt"

	"fieldbrief/internal/citus"
)

// citusDistributeCommand makes a migrated database on a Citus coordinator
// distributed (docs/scaling.md, step 4): every table the kind listed there.
// Run again, it changes nothing and says so.
func citusDistributeCommand(*flag.FlagSet, func(string) string) action {
	return func(ctx context.Context, a *app) error {
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		changes, err := citus.Distribute(ctx, pool, a.log)
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			fmt.Fprintln(a.stdout, "every table is already its Citus kind: nothing to change")
			return nil
		}
		for _, c := range changes {
			fmt.Fprintln(a.stdout, c)
		}
		fmt.Fprintf(a.stdout, "%d tables made their Citus kind\n", len(changes))
		return nil
	}
}
