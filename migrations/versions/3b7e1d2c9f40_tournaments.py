"""tournaments: a club evening over several tables, each table a match of the tournament's night

Revision ID: 3b7e1d2c9f40
Revises: 948b6dcbc749
Create Date: 2026-11-26 01:40:00

``tournaments`` (one per night) holds the game, format, seed and progress;
``tournament_tables`` one row per table and series: its match and the table
leader's token (looked up by its ``token_key``, as the nights' tokens).
"""
from alembic import op
import sqlalchemy as sa


revision = '3b7e1d2c9f40'
down_revision = '948b6dcbc749'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournaments',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('game', sa.String(length=20), nullable=False),
        sa.Column('format', sa.String(length=10), nullable=False),
        sa.Column('series_count', sa.Integer(), nullable=False),
        sa.Column('current_series', sa.Integer(), nullable=False),
        sa.Column('table_size', sa.Integer(), nullable=False),
        sa.Column('advance', sa.Integer(), nullable=False),
        sa.Column('stake', sa.BigInteger(), nullable=False),
        sa.Column('options', sa.JSON(), nullable=False),
        sa.Column('entry_fee', sa.BigInteger(), nullable=False),
        sa.Column('prizes', sa.JSON(), nullable=False),
        sa.Column('seed', sa.String(length=100), nullable=False),
        sa.Column('finished', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['night_id'], ['nights.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('night_id'),
    )
    op.create_table(
        'tournament_tables',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('series', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=64), nullable=False),
        sa.Column('token_key', sa.String(length=64), nullable=False),
        sa.Column('revoked', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['matches.id']),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('match_id'),
        sa.UniqueConstraint('token'),
        sa.UniqueConstraint('token_key'),
        sa.UniqueConstraint('tournament_id', 'series', 'number'),
    )
    with op.batch_alter_table('tournament_tables', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_tournament_tables_tournament_id'), ['tournament_id'], unique=False)


def downgrade():
    with op.batch_alter_table('tournament_tables', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_tables_tournament_id'))
    op.drop_table('tournament_tables')
    op.drop_table('tournaments')
