# SPDX-License-Identifier: MIT
# maven.sh - sourced by the scripts that fetch jars from a Maven repository at run time (bench/lib/fetch-peers.sh,
# tests/tools/check-exports.sh); nothing fetched is ever committed.
#
# maven_get DIR GROUP ARTIFACT VERSION [CLASSIFIER] -> prints the path of DIR/ARTIFACT-VERSION[-CLASSIFIER].jar,
#   downloaded from $MAVEN_REPO (default Maven Central) once and kept only when its sha1 equals the repository's.
#   GROUP may be dotted (org.slf4j) or a path (org/slf4j).  Progress and errors go to stderr; status 1 on failure.
maven_get() {
	local dir=$1 g=${2//.//} a=$3 v=$4 c=${5:-} name out url want have
	local repo=${MAVEN_REPO:-https://repo.maven.apache.org/maven2}
	name="$a-$v${c:+-$c}.jar"
	out="$dir/$name"
	if [[ ! -s $out ]]; then
		url="$repo/$g/$a/$v/$name"
		echo "maven: downloading $url" >&2
		mkdir -p "$dir"
		curl -fsSL --retry 3 --max-time 600 -o "$out.part" "$url" || { rm -f "$out.part"; return 1; }
		want=$(curl -fsSL --retry 3 --max-time 60 "$url.sha1" | awk '{print $1}') || want=
		have=$(sha1sum "$out.part" | awk '{print $1}')
		if [[ -z $want || $want != "$have" ]]; then
			echo "maven: sha1 of $name: repository '$want', file '$have'" >&2
			rm -f "$out.part"
			return 1
		fi
		mv "$out.part" "$out"
	fi
	printf '%s\n' "$out"
}
