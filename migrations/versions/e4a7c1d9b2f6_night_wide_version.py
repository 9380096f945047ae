"""night changes wide index: a night's last write of no match in one index seek

Revision ID: e4a7c1d9b2f6
Revises: 3b7e1d2c9f40
Create Date: 2026-11-26 18:10:00

A guest's copy of a match page is kept per match version and the night's
last write of no match (the players, payments, rights and series a match
page also shows), not per ``live_version``, which at a club evening moves
with every table's round. An index only: no column of a table changes.
"""
from alembic import op


revision = 'e4a7c1d9b2f6'
down_revision = '3b7e1d2c9f40'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('night_changes', schema=None) as batch_op:
        batch_op.create_index('ix_night_changes_wide', ['night_id', 'match_id', 'version'], unique=False)


def downgrade():
    with op.batch_alter_table('night_changes', schema=None) as batch_op:
        batch_op.drop_index('ix_night_changes_wide')
