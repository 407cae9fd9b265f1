#!/usr/bin/env bash
# Make sure the services the tests talk to are up: PostgreSQL (127.0.0.1:5432, database `test`)
# and Redis (127.0.0.1:6379). Starts whichever is down, with the machine's own commands.
set -u

up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {  # port name
  for _ in $(seq 1 60); do up "$1" && return 0; sleep 0.5; done
  echo "services: $2 did not come up on 127.0.0.1:$1" >&2
  return 1
}

status=0
if ! up 5432; then
  echo "services: starting PostgreSQL"
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  fi
  wait_for 5432 PostgreSQL || status=1
fi
if up 5432 && command -v psql >/dev/null 2>&1; then
  psql -h 127.0.0.1 -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" \
    | grep -q 1 || psql -h 127.0.0.1 -U postgres -d postgres -c "CREATE DATABASE test" >/dev/null || true
fi
if ! up 6379; then
  echo "services: starting Redis"
  if command -v redis-server >/dev/null 2>&1; then
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  fi
  wait_for 6379 Redis || status=1
fi
exit $status
