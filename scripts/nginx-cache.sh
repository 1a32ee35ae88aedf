#!/usr/bin/env bash
# A real remote build cache on this machine, for the tests of --remote-cache (and for trying it out): Debian's
# nginx as a WebDAV server in the layout of Bazel's HTTP cache (GET, HEAD, PUT and DELETE of /ac/<key> and
# /cas/<sha256>), listening on 127.0.0.1 only, on a free port it picks, every file under one folder.
#
#   scripts/nginx-cache.sh start    start nginx (a fresh, empty cache; one already running there is stopped first)
#   scripts/nginx-cache.sh stop     stop it and remove the folder (also after a start that failed half-way)
#   scripts/nginx-cache.sh url      print the cache's base URL, e.g. http://127.0.0.1:41234
#
# Under the base URL:
#   /            the cache, open to every request
#   /auth/       the same, but every request without 'Authorization: Bearer <secret>' is answered 401
#                (the secret is $ARCHPOOL_NGINX_SECRET, else a random one; it is in the folder's file 'secret')
#   /fail/       every request answered 500 (a remote that is up but broken)
#
# The folder is $ARCHPOOL_NGINX_DIR, else ${TMPDIR:-/tmp}/archpool-nginx-cache. In it: dav/ (the files the cache
# holds: dav/ac/..., dav/cas/..., dav/auth/ac/...), access.log (one line per request, with its method and path),
# error.log, secret, nginx.conf, url. Needs nginx with its WebDAV module (scripts/setup-debian.sh --nginx).
set -euo pipefail

usage() {
  echo "usage: $0 start|stop|url" >&2
  exit 2
}
[ $# -eq 1 ] || usage

dir="${ARCHPOOL_NGINX_DIR:-${TMPDIR:-/tmp}/archpool-nginx-cache}"
case "$dir" in
  /*) ;;
  *) dir="$PWD/$dir" ;;
esac
# the file that marks a folder as this script's: only such a folder is ever removed
marker="$dir/.archpool-nginx-cache"

say() { echo "nginx-cache: $*" >&2; }

find_nginx() {
  if command -v nginx >/dev/null 2>&1; then
    command -v nginx
  elif [ -x /usr/sbin/nginx ]; then
    echo /usr/sbin/nginx
  else
    say "nginx not found: install it with scripts/setup-debian.sh --nginx"
    exit 1
  fi
}

# Kills the nginx whose master's pid is in the folder, and its workers; waits until they are gone.
stop_nginx() {
  [ -f "$dir/nginx.pid" ] || return 0
  local pid
  pid="$(cat "$dir/nginx.pid" 2>/dev/null || true)"
  case "$pid" in
    ''|*[!0-9]*) rm -f "$dir/nginx.pid"; return 0 ;;
  esac
  # the pid file outlives a crash: kill it only if that process is still an nginx master
  if kill -0 "$pid" 2>/dev/null && grep -q '^nginx: master' "/proc/$pid/cmdline" 2>/dev/null; then
    local workers
    workers="$(ps -o pid= --ppid "$pid" 2>/dev/null || true)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
    for w in $workers; do
      kill -KILL "$w" 2>/dev/null || true
    done
  fi
  rm -f "$dir/nginx.pid"
}

# Stops nginx and removes the folder, if it is this script's.
remove_all() {
  [ -e "$dir" ] || return 0
  if [ ! -f "$marker" ] && [ -n "$(ls -A "$dir" 2>/dev/null || echo not-a-folder)" ]; then
    say "$dir was not made by this script; it removes only its own folder: set ARCHPOOL_NGINX_DIR to a folder of its own"
    exit 2
  fi
  stop_nginx
  rm -rf "$dir"
}

write_conf() {
  local port="$1" secret="$2" user_line=""
  # nginx started by root runs its workers as 'nobody', who could not write the folder: run them as the caller
  if [ "$(id -u)" -eq 0 ]; then
    user_line="user $(id -un) $(id -gn);"
  fi
  cat > "$dir/nginx.conf" <<CONF
# written by archpool's scripts/nginx-cache.sh
$user_line
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
worker_processes 2;
events {
  worker_connections 256;
}
http {
  # every file nginx writes stays in the folder (the package's defaults are under /var/lib/nginx)
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  access_log $dir/access.log;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:$port;
    root $dir/dav;
    # a blob may be any size (the default, 1 MiB, refuses most GPU libraries with 413)
    client_max_body_size 0;
    # a miss is no error
    log_not_found off;
    location / {
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw;
    }
    location /auth/ {
      if (\$http_authorization != "Bearer $secret") {
        return 401;
      }
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw;
    }
    location /fail/ {
      return 500;
    }
  }
}
CONF
  chmod 600 "$dir/nginx.conf"
}

start() {
  local nginx
  nginx="$(find_nginx)"
  if ! "$nginx" -V 2>&1 | grep -q -- '--with-http_dav_module'; then
    say "$nginx has no WebDAV module (nginx -V shows no --with-http_dav_module); install Debian's nginx"
    exit 1
  fi
  local secret="${ARCHPOOL_NGINX_SECRET:-}"
  if [ -z "$secret" ]; then
    secret="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  elif ! [[ "$secret" =~ ^[A-Za-z0-9._~+/=-]+$ ]]; then
    say "ARCHPOOL_NGINX_SECRET may hold only letters, digits and ._~+/=-"
    exit 2
  fi
  remove_all
  mkdir -p "$dir"
  touch "$marker"
  # a start that fails half-way leaves nothing behind
  trap 'status=$?; if [ $status -ne 0 ]; then stop_nginx; rm -rf "$dir"; fi' EXIT
  chmod 700 "$dir"
  mkdir -p "$dir/dav" "$dir/tmp"
  (umask 077 && printf '%s\n' "$secret" > "$dir/secret")
  local port attempt
  for attempt in $(seq 20); do
    port="$(free_port)"
    write_conf "$port" "$secret"
    : > "$dir/error.log"
    # -e: the log nginx writes before it has read the configuration
    if "$nginx" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/error.log"; then
      break
    fi
    if ! grep -q 'Address already in use' "$dir/error.log"; then
      say "nginx did not start:"
      cat "$dir/error.log" >&2
      exit 1
    fi
    port=""
  done
  if [ -z "$port" ]; then
    say "no free port found on 127.0.0.1 in 20 tries"
    exit 1
  fi
  # it listens before it returns, but its master writes the pid file after it has left the caller
  for _ in $(seq 50); do
    [ -s "$dir/nginx.pid" ] && break
    sleep 0.1
  done
  if [ ! -s "$dir/nginx.pid" ]; then
    say "nginx wrote no pid file in 5 s; see $dir/error.log"
    exit 1
  fi
  local url="http://127.0.0.1:$port"
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    say "nginx started but does not accept connections on $url; see $dir/error.log"
    exit 1
  fi
  printf '%s\n' "$url" > "$dir/url"
  trap - EXIT
  say "a remote cache is up at $url (folder $dir; $url/auth needs 'Authorization: Bearer <$dir/secret>')"
}

# A port on 127.0.0.1 that nothing listens on now (nginx may still lose it to another program: start retries).
free_port() {
  if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
  else
    echo $((20000 + RANDOM % 30000))
  fi
}

case "$1" in
  start) start ;;
  stop)
    remove_all
    say "stopped"
    ;;
  url)
    if [ ! -f "$dir/url" ] || [ ! -f "$dir/nginx.pid" ] || ! kill -0 "$(cat "$dir/nginx.pid")" 2>/dev/null; then
      say "no cache is running in $dir; start one with: $0 start"
      exit 1
    fi
    cat "$dir/url"
    ;;
  *) usage ;;
esac
