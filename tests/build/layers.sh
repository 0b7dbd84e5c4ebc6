#!/bin/sh
# SPDX-License-Identifier: MIT
#
# layers.sh SOURCE_DIR "OBJECT..."
#
# The library's layers (doc/design.md, "Layers"), lowest first:
#   core < callback < boost < diag < compat
# A layer may use the rcb_ names (functions and variables) defined in
# its own folder and in the folders below it, never one defined in a
# folder above, except the hook tables that src/core/hooks.h declares
# (extern const struct rcb__..._hooks rcb__..._hooks;), through which a
# lower layer calls a higher one.
#
# Read from the built objects (OBJECT..., one argument, separated by
# spaces: the library target's objects), not the sources: each
# object's path names its folder (.../src/<folder>/<file>.c.o), nm -P
# lists the rcb_ names it defines and the ones it uses (U), and every
# use of a name defined in a higher folder is reported as
#   FAIL: <object> uses <symbol>, defined in src/<folder>/ (higher)
# The checker first runs on generated objects with one upward call and
# must report it.
set -eu

root=$1 objs=$2
hooks=$root/src/core/hooks.h
[ -f "$hooks" ] || { echo "FAIL: $hooks is missing"; exit 1; }
command -v nm >/dev/null || { echo "FAIL: nm is missing (binutils)"; exit 1; }

# The declared interface: the hook tables of core/hooks.h.
iface=$(sed -n \
	's/^extern const struct rcb__[a-z_]* \(rcb__[a-z_]*\);$/\1/p' "$hooks")
[ -n "$iface" ] || { echo "FAIL: no hook table declared in $hooks"; exit 1; }

# check OBJECT...: prints one FAIL line per upward use, returns 1 if any.
check()
{
	for o in "$@"; do
		case $o in
		*/src/core/* | */src/callback/* | */src/boost/* | \
		*/src/diag/* | */src/compat/*) ;;
		*) echo "FAIL: $o is in no layer folder (src/core, callback," \
			"boost, diag, compat)"; return 1 ;;
		esac
	done
	# nm -A -P: "OBJECT: SYMBOL TYPE [VALUE SIZE]", one line per symbol.
	nm -A -P "$@" | awk -v iface="$iface" '
	BEGIN {
		n = split(iface, l, /[ \n]+/)
		for (i = 1; i <= n; i++) ok[l[i]] = 1
		split("core callback boost diag compat", names, " ")
		for (i = 1; i <= 5; i++) rank[names[i]] = i
	}
	$2 !~ /^rcb_/ { next }
	{
		obj = $1; sub(/:$/, "", obj)
		f = obj; sub(/.*\/src\//, "", f); sub(/\/.*/, "", f)
	}
	$3 == "U" {
		nuse++; uobj[nuse] = obj; ufolder[nuse] = f; usym[nuse] = $2
		next
	}
	$3 ~ /^[A-Z]$/ { def[$2] = f }
	END {
		status = 0
		for (i = 1; i <= nuse; i++) {
			s = usym[i]
			if (!(s in def) || (s in ok) ||
			    rank[def[s]] <= rank[ufolder[i]])
				continue
			printf "FAIL: %s uses %s, defined in src/%s/ " \
			       "(higher than src/%s/)\n", uobj[i], s, def[s],
			       ufolder[i]
			status = 1
		}
		exit status
	}'
}

# Self-test: a core object that calls a boost function by name, and one
# that uses the declared interface, must give exactly one report.
work=${TMPDIR:-/tmp}/rcb_layers.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/core" "$work/src/boost"
first=$(echo "$iface" | sed -n 1p)
cat >"$work/src/boost/b.c" <<EOF
void rcb__selftest_up(void);
void rcb__selftest_up(void) {}
int $first;
EOF
cat >"$work/src/core/c.c" <<EOF
void rcb__selftest_up(void);
extern int $first;
int rcb__selftest_core(void);
int rcb__selftest_core(void) { rcb__selftest_up(); return $first; }
EOF
cc=${CC:-cc}
$cc -c "$work/src/boost/b.c" -o "$work/src/boost/b.c.o"
$cc -c "$work/src/core/c.c" -o "$work/src/core/c.c.o"
if out=$(check "$work/src/core/c.c.o" "$work/src/boost/b.c.o"); then
	echo "FAIL: the checker missed an upward call"; exit 1
fi
want='^FAIL: .*uses rcb__selftest_up, defined in src/boost/'
[ "$(echo "$out" | grep -c "$want")" = 1 ] &&
	[ "$(echo "$out" | grep -c .)" = 1 ] ||
	{ echo "FAIL: the checker's self-test reported:"; echo "$out"; exit 1; }

# shellcheck disable=SC2086
set -- $objs
[ $# -gt 0 ] || { echo "FAIL: no object files given"; exit 1; }
for o in "$@"; do
	[ -f "$o" ] || { echo "FAIL: $o does not exist (build first)"; exit 1; }
done
check "$@" || { echo "FAIL: a layer names a higher one's symbol;" \
	"call it through src/core/hooks.h"; exit 1; }
echo "ok: $# objects, none uses an rcb_ name of a higher layer" \
	"(interface: $(echo $iface))"
