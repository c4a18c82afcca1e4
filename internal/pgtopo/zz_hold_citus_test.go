//go:build citus && hold

package pgtopo_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"fieldbrief/internal/pgtopo"
)

func TestCitusHold(t *testing.T) {
	c := pgtopo.CitusCluster(t)
	url := c.DistributedDatabase(t)
	os.WriteFile("/tmp/citus-url", []byte(url), 0o644)
	fmt.Println("READY", url)
	time.Sleep(40 * time.Minute)
}
