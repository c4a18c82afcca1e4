package web

import (
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"fieldbrief/internal/config"
	"fieldbrief/internal/database"
)

// Reading pages from a streaming replica (docs/scaling.md, step 3): the
// reads and the read-your-writes cookie are httpkit.Reads'; the bounds are
// the operator's (config.Web).

// UseReplica sends signed-in pages' reads to replica, a streaming replica
// of the server's database, within cfg's bounds. cmd/web calls it when
// DATABASE_REPLICA_URL is set; call it before serving.
func (s *Server) UseReplica(replica *pgxpool.Pool) {
	s.reads.UseReplica(replica, s.replicaMaxLag(), s.readYourWrites())
}

func (s *Server) replicaMaxLag() time.Duration {
	if s.cfg.ReplicaMaxLag > 0 {
		return s.cfg.ReplicaMaxLag
	}
	return config.DefaultReplicaMaxLag
}

// readYourWrites is how long the cookie lives: REPLICA_READ_YOUR_WRITES,
// but never less than the lag a replica may have plus two checks. Past
// that, a replica within its bound holds the write whatever its position
// said, so the cookie is no longer needed.
func (s *Server) readYourWrites() time.Duration {
	d := s.cfg.ReadYourWrites
	if d <= 0 {
		d = config.DefaultReadYourWrites
	}
	return max(d, s.replicaMaxLag()+2*database.DefaultReplicaCheckEvery)
}
