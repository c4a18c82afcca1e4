package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/config"
)

// TestMetricLabelsAreBounded: whatever method or path a client makes up,
// the request metrics gain no new label value from it (a made-up method
// per request once grew /metrics to 68 MB).
func TestMetricLabelsAreBounded(t *testing.T) {
	t.Parallel()
	f := setup(t)
	anon, member := f.anon(), f.as(&f.memberA)
	for i := range 5 {
		anon.do(fmt.Sprintf("MADEUP%d", i), fmt.Sprintf("/madeup-path-%d", i), nil)
		anon.do(fmt.Sprintf("MADEUP%d", i), "/login", nil)
		anon.get(fmt.Sprintf("/madeup-path-%d", i))
		anon.get(fmt.Sprintf("/static/madeup-file-%d.js", i))
		member.get(fmt.Sprintf("/orgs/acme/madeup-page-%d", i))
		member.get(fmt.Sprintf("/orgs/madeup-org-%d", i))
	}
	res := anon.get("/metrics")
	require.Equal(t, http.StatusOK, res.Code)
	// Not require.Contains: a failure would print the whole exposition.
	require.False(t, strings.Contains(res.Body, "MADEUP"), "a made-up method became a label value")
	require.False(t, strings.Contains(res.Body, "madeup-"), "a made-up path became a label value")
	require.True(t, strings.Contains(res.Body, `method="OTHER"`))
}

// TestMetricsOffThePublicListener: with METRICS_ADDR the metrics are served elsewhere
// and the public listener answers 404; in production it never serves them.
func TestMetricsOffThePublicListener(t *testing.T) {
	t.Parallel()
	for name, adjust := range map[string]func(*config.Web){
		"metrics address": func(c *config.Web) { c.MetricsAddr = "127.0.0.1:0" },
		"production":      func(c *config.Web) { c.Production = true },
	} {
		f := setupConfig(t, adjust)
		res := f.anon().get("/metrics")
		require.Equal(t, http.StatusNotFound, res.Code, name)
		require.False(t, strings.Contains(res.Body, "fieldbrief_http_requests_total"), name)
	}
}
