package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/config"
	"fieldbrief/internal/demo"
)

func seedDemoCommand(*flag.FlagSet, func(string) string) action {
	return func(ctx context.Context, a *app) error {
		// Checked before the database is opened, so a refusal changes nothing.
		production, err := config.IsProduction(a.getenv)
		if err != nil {
			return err
		}
		if production {
			return errors.New("refusing to seed demo data with FIELDBRIEF_ENV=production: " +
				"it creates platform staff and org admins with a known password; use create-org and create-user")
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		sum, err := demo.Seed(ctx, &accounts.Store{DB: pool}, time.Now())
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ORG\tZONE\tBRIEFING\tTECHNICIANS\tJOBS\t")
		for _, o := range sum.Orgs {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\n", o.Slug, o.Timezone, o.Schedule, o.Technicians, o.Jobs, seeded(o.Created, o.JobsSeeded))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(a.stdout)
		w = tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "USER\tACCESS\t")
		for _, u := range sum.Users {
			access := u.Roles
			if u.Staff {
				access = append(access, "platform staff")
			}
			note := ""
			if u.Created {
				note = "(new)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", u.Email, strings.Join(access, ", "), note)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "\nEvery demo user's password: %s\n", sum.Password)
		return nil
	}
}

func seeded(created, jobs bool) string {
	switch {
	case created:
		return "(new)"
	case jobs:
		return "(jobs added)"
	}
	return "(unchanged)"
}
