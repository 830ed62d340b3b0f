# make install: `cmake --install` into a scratch prefix (and with DESTDIR)
# installs the two programs, bash completion for both, where the Valgrind
# tool is built `tea record`'s tool (its links to Valgrind's own files are
# links, not files) and client request header, and, where help2man is
# installed, a man page for each program and each of their commands, and
# the documentation (docs/*.md in share/doc/tea); nothing else (no test
# binaries, fuzz harnesses, libraries or examples). The man pages are ASCII
# (µ and ± as groff escapes), so they read the same in every locale, and
# name the installed documents, which exist. The installed programs run; the
# completion completes commands and options.
. "$(dirname "$0")/lib.bash"

BUILD=$(cd "$BIN/.." && pwd)
SRC=$(cd "$DATA/../.." && pwd)
command -v cmake >/dev/null 2>&1 || fail "cmake is missing"

run 0 cmake --install "$BUILD" --prefix "$SCRATCH/prefix"
[ ! -s err.txt ] || { cat err.txt >&2; fail "cmake --install printed warnings or errors"; }
(cd prefix && find . -type f | sort) >files.txt

# the commands each program lists in its --help
commands() {
    "$BIN/$1" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\)  *.*$/\1/p'
}
{
    echo ./bin/pics
    echo ./bin/tea
    echo ./share/bash-completion/completions/pics
    echo ./share/bash-completion/completions/tea
    for d in "$SRC"/docs/*.md; do
        echo "./share/doc/tea/${d##*/}"
    done
    if [ -x "$BUILD/libexec/tea/valgrind/tearec-amd64-linux" ]; then
        echo ./include/tea_record.h
        echo ./libexec/tea/valgrind/tearec-amd64-linux
    fi
    if [ -f "$BUILD/man/tea.1" ]; then
        echo ./share/man/man1/pics.1
        echo ./share/man/man1/tea.1
        for p in tea pics; do
            for c in $(commands $p); do
                echo "./share/man/man1/$p-$c.1"
            done
        done
    fi
} | sort >want.txt
diff want.txt files.txt >&2 || fail "installed files differ from the expected list (< expected, > installed)"
[ "$(grep -c '^./share/man/man1/' want.txt)" -ge 20 ] || [ ! -f "$BUILD/man/tea.1" ] || fail "too few man pages"
[ -f "$BUILD/man/tea.1" ] || echo "help2man not installed: man pages not checked"

# the programs run from the prefix
run 0 prefix/bin/tea --version
run 0 prefix/bin/pics flamegraph --help
contains out.txt "Usage: pics flamegraph"

# a man page names its command and lists its options
if [ -f prefix/share/man/man1/tea-gen.1 ]; then
    contains prefix/share/man/man1/tea-gen.1 ".TH TEA-GEN"
    contains prefix/share/man/man1/tea-gen.1 "tea gen \\- generate a synthetic trace"
    contains prefix/share/man/man1/tea-gen.1 '\fB\-\-cycles\fR'
    # ASCII only: µ and ± (UTF-8 in the --help) as groff's \(mc and \(+-
    for page in prefix/share/man/man1/*.1; do
        [ "$(tr -d '\011\012\040-\176' <"$page" | wc -c)" -eq 0 ] || fail "$page has bytes that are not ASCII"
        ! grep -qF '??' "$page" || fail "$page has '??' for characters it lost"
    done
    contains prefix/share/man/man1/tea-stalls.1 'distribution of \(mcops without events'
    contains prefix/share/man/man1/pics-table.1 "'mean \(+- half\-interval'"
    if command -v man >/dev/null 2>&1; then
        LC_ALL=C MANWIDTH=80 man -l prefix/share/man/man1/tea-stalls.1 >man.txt 2>&1 || fail "man cannot show tea-stalls.1"
        ! grep -qF '??' man.txt || fail "tea-stalls.1 shows '??' in the C locale"
    fi
    # documents named by their installed path (the prefix's, '-' as groff's \-)
    docdir=$(printf '%s' "$SCRATCH/prefix/share/doc/tea" | sed 's/-/\\-/g')
    ! grep -nE '(^|[^/])docs/' prefix/share/man/man1/*.1 || fail "a man page names docs/ of the source tree"
    contains prefix/share/man/man1/tea-replay.1 "$docdir/semantics.md"
    # every document a page names is installed
    sed 's/\\-/-/g' prefix/share/man/man1/*.1 | grep -oE '/share/doc/tea/[a-z-]+\.md' |
        LC_ALL=C sort -u >docs-named.txt
    [ "$(wc -l <docs-named.txt)" -ge 5 ] || fail "the man pages name too few documents: $(cat docs-named.txt)"
    while read -r d; do
        [ -f "prefix$d" ] || fail "a man page names $d, which is not installed"
    done <docs-named.txt
fi

# DESTDIR staging (what packagers use)
DESTDIR="$SCRATCH/stage" run 0 cmake --install "$BUILD" --prefix /usr/local
[ -x stage/usr/local/bin/tea ] && [ -x stage/usr/local/bin/pics ] || fail "DESTDIR install lacks the programs"
[ "$(cd stage/usr/local && find . -type f | sort)" = "$(cat files.txt)" ] || fail "DESTDIR install differs"
# the pages name the documents where they will be, not where they were staged
if [ -f stage/usr/local/share/man/man1/tea-replay.1 ]; then
    contains stage/usr/local/share/man/man1/tea-replay.1 "/usr/local/share/doc/tea/semantics.md"
    ! grep -qF "$SCRATCH" stage/usr/local/share/man/man1/*.1 || fail "a staged man page names the staging directory"
fi

# bash completion: commands, then a command's options (from its table)
complete_words() {
    # complete_words PROGRAM WORD...: what completing the last word offers
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "_${1}_complete"; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "prefix/share/bash-completion/completions/$1" "$@"
}
bash -n prefix/share/bash-completion/completions/tea || fail "tea completion is not valid bash"
[ "$(complete_words tea re | tr '\n' ' ')" = "record replay " ] || fail "tea re -> $(complete_words tea re)"
[ "$(complete_words tea gen --cy)" = --cycles ] || fail "tea gen --cy -> $(complete_words tea gen --cy)"
[ "$(complete_words pics flamegraph --ti)" = --title ] || fail "pics flamegraph --ti -> $(complete_words pics flamegraph --ti)"
# every option of every command's --help is offered after the command
for p in tea pics; do
    for c in $(commands $p); do
        "$BIN/$p" "$c" --help | sed -n 's/^ \{1,4\}\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z0-9-]*\).*$/\2/p' >opts.txt
        while read -r o; do
            complete_words $p "$c" "$o" | grep -qx -- "$o" || fail "$p $c: completion lacks $o"
        done <opts.txt
    done
done
exit 0
