"""tournament entries and series time limit (issue 43.2, 43.3)

Revision ID: f43a1e0e0704
Revises: f46c2a0e0703
Create Date: 2026-11-28 16:40:00

``tournament_entries``: a player who came late (``joined_series``) or left
early (``left_series``); the players drawn at creation have no row.
``tournaments.series_minutes`` (a series' time limit, nullable) and
``tournaments.series_started_at`` (when the current series was drawn,
naive UTC, nullable), for the hall's countdown.
"""
from alembic import op
import sqlalchemy as sa


revision = 'f43a1e0e0704'
down_revision = 'f46c2a0e0703'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('series_minutes', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('series_started_at', sa.DateTime(), nullable=True))
    op.create_table(
        'tournament_entries',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('player', sa.String(length=40), nullable=False),
        sa.Column('joined_series', sa.Integer(), nullable=False),
        sa.Column('left_series', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('tournament_id', 'player'),
    )
    with op.batch_alter_table('tournament_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournament_entries_tournament_id'), ['tournament_id'], unique=False)


def downgrade():
    with op.batch_alter_table('tournament_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_entries_tournament_id'))
    op.drop_table('tournament_entries')
    with op.batch_alter_table('tournaments', schema=None) as batch_op:
        batch_op.drop_column('series_started_at')
        batch_op.drop_column('series_minutes')
