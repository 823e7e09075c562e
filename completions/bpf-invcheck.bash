# bash completion for bpf-invcheck (installed by meson into
# share/bash-completion/completions). tests/manpage.py checks that the
# option list below is the one of --help.
_bpf_invcheck()
{
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local opts="--dump= --program= --loop-bound= --timeout= --jobs= --format= --quiet
		--replay-kernel --cex-dir= --cex-dot --replay= --kernel-btf= --max-memory= --rlimit= --deadline= --no-timing --no-search --no-absint --cache= --stats -I --pack-dir= --help --version"

	if [[ ${COMP_WORDS[1]} == diff && $COMP_CWORD -gt 1 && $cur == -* ]]; then
		COMPREPLY=($(compgen -W "--program= --loop-bound= --timeout= --flow-affinity --help" -- "$cur"))
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	case $cur in
	--dump=*)
		COMPREPLY=($(compgen -P --dump= -W "object insns cfg ssa" -- "${cur#--dump=}"))
		return;;
	--format=*)
		COMPREPLY=($(compgen -P --format= -W "text json sarif" -- "${cur#--format=}"))
		return;;
	--cex-dir=* | --pack-dir=* | --cache=*)
		COMPREPLY=($(compgen -P "${cur%%=*}=" -d -- "${cur#*=}"))
		return;;
	--replay=*)
		COMPREPLY=($(compgen -P --replay= -f -X '!*.json' -- "${cur#--replay=}"))
		return;;
	--kernel-btf=*)
		COMPREPLY=($(compgen -P --kernel-btf= -f -- "${cur#--kernel-btf=}"))
		return;;
	-*)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return;;
	esac
	if [[ $COMP_CWORD -eq 1 && diff == "$cur"* && -n $cur ]]; then
		COMPREPLY=(diff)
		return
	fi
	if [[ $prev == -I ]]; then
		COMPREPLY=($(compgen -d -- "$cur"))
		return
	fi
	# OBJECT then SPEC: BPF objects and spec files
	COMPREPLY=($(compgen -f -X '!*.@(o|inv)' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _bpf_invcheck bpf-invcheck
