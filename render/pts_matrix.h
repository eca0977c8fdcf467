/*  pts_matrix.h: the PTS report's matrix (controller/templates/pts.h), looked up the
    same way by its text (cli/pts_print.c) and HTML (html_pts.c) forms. */
#ifndef IOF_PTS_MATRIX_H
#define IOF_PTS_MATRIX_H

#include <jansson.h>

/* The fleet's cell of the matrix at row (a block size) and col (a
   column's label), or NULL.  Borrowed from q.  Can't fail. */
json_t *pts_cell (json_t *q, json_t *row, json_t *col);

#endif
