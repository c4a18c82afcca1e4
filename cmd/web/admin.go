package main

import (
	"context"
	"flag"
	"fmt"

	"fieldbrief/internal/orgs"
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
	return func(ctx context.Context, a *app) error {
		if *slug == "" || *name == "" {
			return usageErrorf("-slug and -name are required")
		}
		if err := orgs.ValidateOrg(*slug, *name); err != nil {
			return usageErrorf("%v", err)
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		org, err := (&orgs.Store{DB: pool}).CreateOrg(ctx, *slug, *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "created org id=%d slug=%s name=%q\n", org.ID, org.Slug, org.Name)
		return nil
	}
}

func createUserCommand(fs *flag.FlagSet, _ func(string) string) action {
	email := fs.String("email", "", "sign-in email (required)")
	password := fs.String("password", "", "password; for an existing user this sets a new one (required)")
	staff := fs.Bool("staff", false, "make the user platform staff")
	orgSlug := fs.String("org", "", "also add the user to the org with this slug")
	role := fs.String("role", "", "role in -org: admin or member (default member)")
	return func(ctx context.Context, a *app) error {
		if *email == "" || *password == "" {
			return usageErrorf("-email and -password are required")
		}
		if *role != "" && *orgSlug == "" {
			return usageErrorf("-role needs -org")
		}
		if *orgSlug != "" && *role == "" {
			*role = string(orgs.RoleMember)
		}
		if *orgSlug != "" {
			if _, err := orgs.ParseRole(*role); err != nil {
				return usageErrorf("-role must be admin or member, not %q", *role)
			}
		}
		pool, err := a.open(ctx)
		if err != nil {
			return err
		}
		defer pool.Close()
		store := &orgs.Store{DB: pool}

		// Find the org first, so a mistyped slug leaves no user behind.
		var org orgs.Org
		if *orgSlug != "" {
			if org, err = store.OrgBySlug(ctx, *orgSlug); err != nil {
				return err
			}
		}
		u, err := store.UpsertUser(ctx, *email, *password, *staff)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "user id=%d email=%s staff=%t\n", u.ID, u.Email, u.IsStaff)
		if *orgSlug == "" {
			return nil
		}
		if err := store.AddMember(ctx, org.ID, u.ID, orgs.Role(*role)); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "member of %s (org id=%d) as %s\n", org.Slug, org.ID, *role)
		return nil
	}
}
