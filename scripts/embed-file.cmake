# Embeds one text file as a C string: -DIN=file -DOUT=file.c -DVAR=name
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "/* generated from ${VAR} source at build time; do not edit */\nconst char ${VAR}[] = { ${bytes} 0 };\n")
