#!/usr/bin/env bash
# Prepares (once) an arm64 sysroot from Debian's archive for the aarch64 cross build
# (cmake/toolchains/aarch64-linux-gnu.cmake) and qemu-aarch64, and prints its path on stdout.
# Progress goes to stderr.
#
#   scripts/arm64_sysroot.sh         -> /root/.cache/torchir/sysroot-arm64-<hash>
#
# The host's packages are never touched: installing `:arm64` dev packages through multiarch
# would remove the host's LibTorch and XNNPACK dev packages (their arm64 twins conflict), so the
# .debs are fetched by a private apt (its own architecture, package lists, cache and an empty
# dpkg status under ~/.cache/torchir/apt-arm64; the host's sources and apt.conf.d otherwise)
# and unpacked with `dpkg -x`. Absolute symlinks are made relative so that the tree works as a
# prefix (qemu-aarch64 -L, the linker). The C and C++ headers and static parts come with the cross
# compiler (g++-aarch64-linux-gnu); the sysroot adds the libraries torchir needs and the shared C
# and C++ libraries the emulated programs load.
#
# Keyed by the package list's hash (like scripts/python_env.sh's environment): a changed list
# makes a new sysroot. Exit status 1 with an `arm64_sysroot: error:` line when the archive cannot
# be reached or a package is missing. TORCHIR_ARM64_SYSROOT overrides the sysroot's place.
set -euo pipefail

PACKAGES=(
  libxnnpack-dev libxnnpack0            # the XNNPACK delegate
  libpthreadpool-dev libpthreadpool0
  libcpuinfo-dev libcpuinfo0
  libhwy-dev libhwy1                    # the native kernels (Highway: NEON / SVE)
  libgtest-dev libgmock-dev             # the runtime unit tests (static libraries)
  libflatbuffers-dev                    # the headers of the generated schema code
  libc6 libstdc++6 libgcc-s1            # what the emulated programs load at run time
)

hash=$(printf '%s\n' "${PACKAGES[@]}" | sha256sum | cut -c1-12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/torchir
sysroot=${TORCHIR_ARM64_SYSROOT:-$cache/sysroot-arm64-$hash}
apt_dir=$cache/apt-arm64

fail() {
  echo "arm64_sysroot: error: $*" >&2
  exit 1
}

for tool in apt-get dpkg flock; do
  command -v "$tool" > /dev/null || fail "$tool not found (a Debian host is needed)"
done

mkdir -p "$cache"
# One preparer at a time: a second run waits, then finds the sysroot complete.
exec 9> "$cache/.sysroot-arm64.lock"
flock 9
if [[ -f "$sysroot/.torchir-complete" ]]; then
  echo "$sysroot"
  exit 0
fi

echo "arm64_sysroot: preparing $sysroot" >&2
start=$SECONDS
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/debs"
: > "$apt_dir/status"
# Only the architecture and apt's state differ from the host's configuration.
apt=(apt-get -q
  -o APT::Architecture=arm64 -o APT::Architectures::=arm64
  -o Dir::State="$apt_dir" -o Dir::State::Lists="$apt_dir/lists"
  -o Dir::State::status="$apt_dir/status" -o Dir::Cache="$apt_dir"
  -o Dir::Cache::archives="$apt_dir/archives" -o Debug::NoLocking=1
  -o APT::Sandbox::User=root)
# apt-get update exits 0 when an index failed to download: its warnings count too.
if ! "${apt[@]}" update > "$apt_dir/update.log" 2>&1 ||
    grep -qE '^(E: |W: Failed to fetch|W: Some index files failed)' "$apt_dir/update.log"; then
  grep -E '^(E|W): ' "$apt_dir/update.log" | sed 's/^/  /' >&2
  fail "cannot read Debian's archive for arm64 (apt-get update failed; the log is" \
       "$apt_dir/update.log). The aarch64 build needs the network once, to the archive."
fi

rm -rf "$apt_dir/debs" && mkdir -p "$apt_dir/debs"
(cd "$apt_dir/debs" && "${apt[@]}" download "${PACKAGES[@]/%/:arm64}") \
  > "$apt_dir/download.log" 2>&1 ||
  { tail -5 "$apt_dir/download.log" >&2; fail "downloading the arm64 packages failed"; }

staging=$sysroot.partial
rm -rf "$staging"
mkdir -p "$staging"
for deb in "$apt_dir"/debs/*.deb; do
  dpkg -x "$deb" "$staging"
  dpkg-deb -f "$deb" Package Version | paste -sd' ' >> "$staging/packages.txt"
done
# Absolute links (libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1) would point into the
# host; make each relative to its place in the sysroot.
while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  [[ $target == /* ]] || continue
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$staging$target")" "$link"
done < <(find "$staging" -type l -print0)
# The loader's usual names, whichever of /lib and /usr/lib a package used (merged /usr).
for dir in lib usr/lib; do mkdir -p "$staging/$dir/aarch64-linux-gnu"; done
[[ -e $staging/lib/ld-linux-aarch64.so.1 ]] ||
  ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$staging/lib/ld-linux-aarch64.so.1"
[[ -e $staging/lib/ld-linux-aarch64.so.1 ]] || fail "no dynamic loader in the sysroot"

touch "$staging/.torchir-complete"
rm -rf "$sysroot"
mv "$staging" "$sysroot"
echo "arm64_sysroot: $(wc -l < "$sysroot/packages.txt") packages in $((SECONDS - start)) s" >&2
echo "$sysroot"
