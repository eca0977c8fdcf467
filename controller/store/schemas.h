/*  schemas.h: the numbered SQL migrations from schemas/, embedded at build
    time by scripts/embed-schemas.cmake, in version order. */
#ifndef IOF_SCHEMAS_H
#define IOF_SCHEMAS_H

typedef struct {
    int version;
    const char *name;
    const char *sql;
} schema_migration_t;

extern const schema_migration_t schema_migrations[];
extern const int schema_nmigrations;

#endif
