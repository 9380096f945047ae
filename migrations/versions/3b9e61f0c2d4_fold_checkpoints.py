"""fold checkpoints: the fold of a match's log every N rounds, so a cold page folds at most N events

Revision ID: 3b9e61f0c2d4
Revises: 948b6dcbc749
Create Date: 2026-11-26 01:20:00

``fold_checkpoints`` (match, round number) holds the engine state after the
events up to that round and the chart's points since the previous one
(issue 29: a cold page stays cheap). Matches stored before this revision
have none until their next checkpoint round is entered; until then their
fold starts from the beginning, as before.
"""
from alembic import op
import sqlalchemy as sa


revision = '3b9e61f0c2d4'
down_revision = '948b6dcbc749'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'fold_checkpoints',
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('since', sa.Integer(), nullable=False),
        sa.Column('events', sa.Integer(), nullable=False),
        sa.Column('state', sa.JSON(), nullable=False),
        sa.Column('segment', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['matches.id']),
        sa.PrimaryKeyConstraint('match_id', 'seq'),
    )


def downgrade():
    op.drop_table('fold_checkpoints')
