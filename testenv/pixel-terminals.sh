#!/usr/bin/env bash
# The TUI's image results in real terminals that draw pixels, headless (issue 10): a virtual X
# server (Xvfb), xterm as a VT340 (sixel), kitty on Mesa's software GL (kitty graphics) and
# mlterm (sixel), each running `mcpscope --tui --demo`; keys typed with xdotool open the demo's
# get-image tool and run it, and the screen is photographed at each step.
#
# NOT part of CI: it installs X, three terminals and ImageMagick (hundreds of MB) and its checks
# are screenshots a person looks at. The cheap part (the bytes the TUI writes, placed at the
# result's cell) is a Rust test: `cargo test -p mcpscope-tui --lib widgets::image`.
#
# Usage: testenv/pixel-terminals.sh OUT_DIR [CASE...]
#   OUT_DIR gets CASE-1-list.png, CASE-2-result.png, CASE-3-back.png, CASE-4-history.png
#   CASE is one of the names in CASES below (default: all).
# Env: MCPSCOPE (the binary; default target/debug/mcpscope of this checkout), NO_INSTALL=1 to
#   skip apt-get, DISPLAY_NUM (default 99).
set -euo pipefail

out=${1:?usage: $0 OUT_DIR [CASE...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${MCPSCOPE:-$here/target/debug/mcpscope}
disp=:${DISPLAY_NUM:-99}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)

# name | terminal | MCPSCOPE_TUI_GRAPHICS ("" = detection from the environment)
CASES=(
	"xterm-halfblocks|xterm|halfblocks"
	"xterm-env|xterm|"
	"xterm-sixel|xterm|sixel"
	"xterm-query|xterm|query"
	"kitty-env|kitty|"
	"kitty-kitty|kitty|kitty"
	"kitty-query|kitty|query"
	"mlterm-env|mlterm|"
	"mlterm-query|mlterm|query"
)

install() {
	[ "${NO_INSTALL:-}" = 1 ] && return
	command -v Xvfb >/dev/null && command -v kitty >/dev/null && command -v mlterm >/dev/null &&
		command -v xdotool >/dev/null && command -v convert >/dev/null && return
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		xvfb xterm kitty mlterm xdotool x11-apps x11-utils imagemagick fonts-dejavu-core \
		libgl1-mesa-dri
}

# Run the terminal $1, titled $2, running the TUI through $work/run.sh.
terminal() {
	local kind=$1 title=$2
	case $kind in
	# -ti vt340: xterm answers DA1 with sixel (4) and draws DCS q; 256 colour registers.
	xterm) exec xterm -ti vt340 -xrm "XTerm*decTerminalID: vt340" \
		-xrm "XTerm*numColorRegisters: 256" -geometry 120x36+0+0 -fa "DejaVu Sans Mono" \
		-fs 11 -title "$title" -e "$work/run.sh" ;;
	# No GPU under Xvfb: Mesa's llvmpipe gives kitty the OpenGL 3.3 it needs.
	kitty) exec env LIBGL_ALWAYS_SOFTWARE=1 kitty -o font_size=11 -o remember_window_size=no \
		-o initial_window_width=1080 -o initial_window_height=690 -T "$title" "$work/run.sh" ;;
	mlterm) exec mlterm -g 120x36+0+0 -T "$title" -e "$work/run.sh" ;;
	esac
}

# A window titled $1, once it is mapped (a generous deadline: software GL starts slowly).
window() {
	local i
	for i in $(seq 1 120); do
		xdotool search --name "^$1\$" 2>/dev/null | head -1 && return
		sleep 0.5
	done
	return 1
}

# The screen inside window $1 (the root's pixels: a GL window's own are not readable) to $2.
shot() {
	local WIDTH HEIGHT X Y WINDOW SCREEN
	eval "$(xdotool getwindowgeometry --shell "$1")"
	xwd -root -display "$disp" | convert xwd:- -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "png:$2"
}

keys() {
	local k
	for k in "$@"; do
		xdotool key "$k"
		sleep 0.4
	done
}

run_case() {
	local name=$1 kind=$2 graphics=$3 data=$work/data-$1
	mkdir -p "$data"
	cat >"$work/run.sh" <<EOF
#!/bin/sh
export MCPSCOPE_DATA_DIR='$data'
[ -n '$graphics' ] && export MCPSCOPE_TUI_GRAPHICS='$graphics'
env | grep -E '^(TERM|TERM_PROGRAM|KITTY_WINDOW_ID|MCPSCOPE_TUI_GRAPHICS)=' >'$out/$name-env.txt'
'$bin' --tui --demo 2>'$out/$name-stderr.txt'
echo "mcpscope exited \$?"; sleep 30
EOF
	chmod +x "$work/run.sh"
	terminal "$kind" "$name" >"$work/$name-terminal.log" 2>&1 &
	local pid=$! w
	w=$(window "$name") || {
		echo "$name: no window ($(tail -3 "$work/$name-terminal.log"))"
		kill "$pid" 2>/dev/null || true
		return
	}
	xdotool windowfocus "$w"
	sleep 4 # connected and listed (the demo answers in milliseconds; a query waits ≤ 1 s)
	shot "$w" "$out/$name-1-list.png"
	# get-image is the fourth tool; Enter opens its form, Ctrl-R runs it.
	keys Down Down Down Return
	sleep 1
	keys ctrl+r
	sleep 3
	shot "$w" "$out/$name-2-result.png"
	keys Escape # back to the form: the picture must be gone
	sleep 1
	shot "$w" "$out/$name-3-back.png"
	keys ctrl+r
	sleep 2
	keys h # another tab while the picture is up
	sleep 1
	shot "$w" "$out/$name-4-history.png"
	keys q
	sleep 1
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "$name: $(cat "$out/$name-env.txt" | tr '\n' ' ')"
}

install
[ -x "$bin" ] || {
	echo "no $bin: cargo build -p mcpscope first (or set MCPSCOPE)"
	exit 1
}
Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
export DISPLAY=$disp
for i in $(seq 1 40); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.25; done

for c in "${CASES[@]}"; do
	IFS='|' read -r name kind graphics <<<"$c"
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
	run_case "$name" "$kind" "$graphics"
done
echo "screenshots in $out"
