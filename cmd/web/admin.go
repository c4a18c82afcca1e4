package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"fieldbrief/internal/accounts"
	"fieldbrief/internal/audit"
	"fieldbrief/internal/config"
	"fieldbrief/internal/history"
	"fieldbrief/internal/i18n"
	"fieldbrief/internal/tenants"
	"fieldbrief/internal/tokens"
)

func migrateCommand(*flag.FlagSet, func(string) string) action {
	return func(ctx context.Context, a *app) error {
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		pool.Close()
		fmt.Fprintln(a.stdout, "database is up to date")
		return nil
	}
}

func createOrgCommand(fs *flag.FlagSet, _ func(string) string) action {
	slug := fs.String("slug", "", "URL name of the org: lowercase letters, digits, '-' or '_' (required)")
	name := fs.String("name", "", "display name (required)")
	locale := fs.String("locale", i18n.DefaultLocale, "the org's locale, a BCP 47 tag: the language and formats its people read\n"+
		"unless they choose their own; one of "+strings.Join(localeTags(), ", "))
	return func(ctx context.Context, a *app) error {
		if *slug == "" || *name == "" {
			return usageErrorf("-slug and -name are required")
		}
		if err := tenants.ValidateOrg(*slug, *name); err != nil {
			return usageErrorf("%v", err)
		}
		loc, err := i18n.ParseLocale("locale", *locale)
		if err != nil {
			return usageErrorf("-locale %q: %v", *locale, err)
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		org, err := (&tenants.Store{DB: pool}).ProvisionOrgIn(ctx, audit.System, *slug, *name, loc)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "created org id=%d slug=%s name=%q locale=%s\n", org.ID, org.Slug, org.Name, org.Locale)
		return nil
	}
}

// localeTags are the locales create-org takes, for its help.
func localeTags() []string {
	var out []string
	for _, o := range i18n.Locales() {
		out = append(out, o.Tag)
	}
	return out
}

func createUserCommand(fs *flag.FlagSet, _ func(string) string) action {
	email := fs.String("email", "", "sign-in email (required)")
	passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	password := fs.String("password", "", "the password; shows in the process list and shell history, so prefer\n"+
		"-password-stdin or FIELDBRIEF_PASSWORD (one of the three is required). At least\n"+
		fmt.Sprintf("%d characters and not a common password (docs/accounts.md). For an existing\n", accounts.MinPasswordLen)+
		"user, a different password replaces the old one and signs them out everywhere")
	staff := fs.Bool("staff", false, "make the user platform staff (never taken away here)")
	orgSlug := fs.String("org", "", "also add the user to the org with this slug")
	role := fs.String("role", "", "role in -org: admin, dispatcher or member (default member)")
	return func(ctx context.Context, a *app) error {
		if *email == "" {
			return usageErrorf("-email is required")
		}
		pw, err := readPassword(a, *password, *passwordStdin)
		if err != nil {
			return err
		}
		if *role != "" && *orgSlug == "" {
			return usageErrorf("-role needs -org")
		}
		if *orgSlug != "" && *role == "" {
			*role = string(tenants.RoleMember)
		}
		if *orgSlug != "" {
			if _, err := tenants.ParseRole(*role); err != nil {
				return usageErrorf("-role must be admin, dispatcher or member, not %q", *role)
			}
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		store := &tenants.Store{DB: pool}

		// Find the org first for a clear error; the user, the membership and
		// the audit entries are then written in one transaction.
		var org tenants.Org
		if *orgSlug != "" {
			if org, err = store.OrgBySlug(ctx, *orgSlug); err != nil {
				return err
			}
		}
		p, err := (&accounts.Store{DB: pool}).ProvisionUser(ctx, audit.System, *email, pw, *staff, org.ID, tenants.Role(*role))
		if err != nil {
			return err
		}
		var changes []string
		if p.Created {
			changes = append(changes, "created")
		}
		if p.PasswordChanged {
			changes = append(changes, "password changed")
		}
		if p.StaffGranted && !p.Created {
			changes = append(changes, "staff granted")
		}
		if len(changes) == 0 {
			changes = append(changes, "unchanged")
		}
		fmt.Fprintf(a.stdout, "user id=%d email=%s staff=%t (%s)\n", p.User.ID, p.User.Email, p.User.IsStaff, strings.Join(changes, ", "))
		if *orgSlug == "" {
			return nil
		}
		note := "unchanged"
		switch {
		case p.OldRole == "":
			note = "added"
		case p.OldRole != p.Role:
			note = "was " + string(p.OldRole)
		}
		fmt.Fprintf(a.stdout, "member of %s (org id=%d) as %s (%s)\n", org.Slug, org.ID, p.Role, note)
		return nil
	}
}

// readPassword takes create-user's password from -password-stdin (the first
// line of stdin), -password, or FIELDBRIEF_PASSWORD, in that order; giving
// both flags is a mistake.
func readPassword(a *app, flagValue string, fromStdin bool) (string, error) {
	switch {
	case fromStdin && flagValue != "":
		return "", usageErrorf("give -password-stdin or -password, not both")
	case fromStdin:
		in := a.stdin
		if in == nil {
			in = strings.NewReader("")
		}
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from stdin: %w", err)
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			return "", usageErrorf("-password-stdin: the first line of stdin is empty")
		}
		return line, nil
	case flagValue != "":
		return flagValue, nil
	case config.Password(a.getenv) != "":
		return config.Password(a.getenv), nil
	}
	return "", usageErrorf("a password is required: -password-stdin, FIELDBRIEF_PASSWORD or -password")
}

func webhookSecretCommand(fs *flag.FlagSet, _ func(string) string) action {
	slug := fs.String("org", "", "slug of the org (required)")
	rotate := fs.Bool("rotate", false, "replace the secret with a new one (audited, without the value) and print it")
	return func(ctx context.Context, a *app) error {
		if *slug == "" {
			return usageErrorf("-org is required")
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		store := &tenants.Store{DB: pool}
		org, err := store.OrgBySlug(ctx, *slug)
		if err != nil {
			return err
		}
		var secret string
		if *rotate {
			secret, err = store.RotateWebhookSecret(ctx, audit.System, org.ID)
		} else {
			secret, err = store.WebhookSecret(ctx, org.ID)
		}
		if err != nil {
			return err
		}
		// The secret alone on stdout, so scripts can capture it.
		fmt.Fprintln(a.stdout, secret)
		return nil
	}
}

func createTokenCommand(fs *flag.FlagSet, _ func(string) string) action {
	slug := fs.String("org", "", "slug of the org (required)")
	name := fs.String("name", "", "what will use the token, e.g. \"Dispatch sync\"; unique among the org's live tokens (required)")
	scopeFlag := fs.String("scope", "write", "read (reads only) or write (reads and writes)")
	return func(ctx context.Context, a *app) error {
		if *slug == "" || *name == "" {
			return usageErrorf("-org and -name are required")
		}
		scope, err := tokens.ParseScope(*scopeFlag)
		if err != nil {
			return usageErrorf("-scope: %s", i18n.English.Message(err))
		}
		if err := tokens.ValidateName(*name); err != nil {
			return usageErrorf("-name: %s", i18n.English.Message(err))
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		store := &tenants.Store{DB: pool}
		org, err := store.OrgBySlug(ctx, *slug)
		if err != nil {
			return err
		}
		_, token, err := (&tokens.Store{DB: pool}).Create(ctx, audit.System, org.ID, *name, scope, time.Now())
		if err != nil {
			return err
		}
		// The token alone on stdout, so scripts can capture it; it is shown
		// nowhere else, ever.
		fmt.Fprintln(a.stdout, token)
		return nil
	}
}

// historyRetentionCommand runs what the worker's daily history_retention
// task runs, now: an operator who shortened HISTORY_RETENTION need not wait
// for 03:17 UTC (docs/operations.md, "History retention").
func historyRetentionCommand(_ *flag.FlagSet, getenv func(string) string) action {
	return func(ctx context.Context, a *app) error {
		retention, err := config.HistoryRetention(getenv)
		if err != nil {
			return usageErrorf("%v", err)
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		now, err := history.DatabaseNow(ctx, pool) // not the host's clock: docs/scheduling.md, "One clock"
		if err != nil {
			return err
		}
		if _, err := history.EnsurePartitions(ctx, pool, now); err != nil {
			return err
		}
		dropped, err := history.DropExpired(ctx, pool, a.log, now, retention)
		for _, d := range dropped {
			fmt.Fprintf(a.stdout, "dropped %s (%s, %s)\n", d.Partition, d.Table, d.Month.Format("2006-01"))
		}
		if err != nil {
			return err
		}
		oldest, ok, err := history.Oldest(ctx, pool)
		if err != nil {
			return err
		}
		if ok {
			fmt.Fprintf(a.stdout, "history kept from %s (HISTORY_RETENTION %d days)\n", oldest.Format("2006-01-02"), int(retention/(24*time.Hour)))
		}
		return nil
	}
}
