# select.awk: the rows of a results CSV whose named columns have the given values, header kept.
# usage: awk -F, -v where="m=8192 n=8192" -f select.awk FILE.csv
BEGIN { nf = split(where, conds, " ") }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print; next }
{
    keep = 1
    for (c = 1; c <= nf; c++) {
        split(conds[c], kv, "=")
        if ($(col[kv[1]]) != kv[2]) keep = 0
    }
    if (keep && $(col["ok"]) != "no") print
}
