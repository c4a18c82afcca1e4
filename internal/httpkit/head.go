package httpkit

import "net/http"

// HeadAsGet serves HEAD wherever h serves GET: the request is routed and
// handled as a GET (echo routes on the request it is given, so this
// happens before echo sees it) and the body is dropped on the way out.
func HeadAsGet(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			r = r.Clone(r.Context())
			r.Method = http.MethodGet
			w = headWriter{w}
		}
		h.ServeHTTP(w, r)
	})
}

// headWriter answers a HEAD: the headers and status of the GET, no body.
type headWriter struct{ http.ResponseWriter }

func (w headWriter) Write(p []byte) (int, error) { return len(p), nil }

func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
