#!/usr/bin/env bash
# Starts PostgreSQL, MariaDB and Redis on this machine when they are not answering (the test suites use them for real).
set -u
up() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
wait_port() { for _ in $(seq 1 30); do up "$1" && return 0; sleep 1; done; echo "service on port $1 did not start" >&2; return 1; }

if ! up 5432; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
  wait_port 5432
fi
if ! up 3306; then
  echo "starting MariaDB"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
  wait_port 3306
fi
if ! up 6379; then
  echo "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
  wait_port 6379
fi
