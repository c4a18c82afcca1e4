package unsubscribe_test

import (
	"testing"

	"fieldbrief/internal/testutil"
)

type bundle struct{ testutil.Orgs }

func setup(t *testing.T) bundle { return bundle{testutil.NewOrgs(t)} }
