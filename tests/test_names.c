/*  test_names.c: common/names.c, the one rule for names that become paths
    or markup (agent names, plan names): what it takes, what it refuses,
    and that its message names the rule and the offending byte, cut where
    a UTF-8 character starts. */
#include "testutil.h"
#include "names.h"

#include <stdlib.h>
#include <string.h>

int
main (void)
{
    static const char *good[] = {
        "a", "a1", "rack12-host3", "host.example.com", "A_b-C.9", "...", ".a", "a..b",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",     /* 64 */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char err[256] = "untouched";
        CHECK_MSG (names_valid (good[i]) && names_check ("name", good[i], err, sizeof err) == 0,
                   "'%s' refused: %s", good[i], err);
        CHECK (strcmp (err, "untouched") == 0);
    }
    static const struct { const char *name, *want; } bad[] = {
        { "", "name is empty: a name is " NAMES_RULE },
        { ".", "name '.' is not a name (it means a directory): a name is " NAMES_RULE },
        { "..", "name '..' is not a name (it means a directory): a name is " NAMES_RULE },
        { "../../../x/escaped", "name '../../../x/escaped' has '/' (byte 3): a name is "
          NAMES_RULE },
        { "<script>alert(7)</script>", "name '<script>alert(7)</script>' has '<' (byte 1): "
          "a name is " NAMES_RULE },
        { "a b", "name 'a b' has byte 0x20 (byte 2): a name is " NAMES_RULE },
        { "fio:host", "name 'fio:host' has ':' (byte 4): a name is " NAMES_RULE },
        { "caf\xc3\xa9", "name 'caf\xc3\xa9' has byte 0xc3 (byte 4): a name is " NAMES_RULE },
        { "a\x01", "name has byte 0x01 (byte 2): a name is " NAMES_RULE },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",     /* 65 */
          "name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is 65 "
          "bytes long: a name is " NAMES_RULE },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "";
        CHECK_MSG (!names_valid (bad[i].name), "'%s' taken", bad[i].name);
        CHECK (names_check ("name", bad[i].name, err, sizeof err) == -1);
        CHECK_MSG (strcmp (err, bad[i].want) == 0, "\n     got: %s\n    want: %s", err,
                   bad[i].want);
    }
    CHECK (!names_valid (NULL));
    CHECK (names_check ("name", "a/b", NULL, 0) == -1);

    /* A long name of 2-byte characters is shown cut before a character,
       never inside one. */
    char long_utf8[201];
    for (int i = 0; i < 200; i += 2)
        memcpy (long_utf8 + i, "\xc3\xa9", 2);
    long_utf8[200] = '\0';
    char err[512];
    CHECK (names_check ("name", long_utf8 + 1, err, sizeof err) == -1);    /* starts mid-char */
    const char *q = strchr (err, '\'');
    const char *end = q ? strstr (q, "...'") : NULL;
    CHECK_MSG (q && end && (end - (q + 1)) <= NAMES_MAX
               && ((unsigned char) end[-1] & 0xc0) == 0x80 && ((unsigned char) end[-2]) == 0xc3,
               "cut inside a character: %s", err);
    printf ("test_names: %d checks, %d failed\n", test_checks, test_failures);
    return test_failures ? 1 : 0;
}
