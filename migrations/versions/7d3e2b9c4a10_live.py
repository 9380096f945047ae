"""live: a version per night and the log of its changes (the live stream, API "Live")

Revision ID: 7d3e2b9c4a10
Revises: 5c1f0e7a9b3d
Create Date: 2026-11-24 19:00:00

``nights.live_version`` grows with every write to the night, in the write's
transaction; ``night_changes`` keeps each write so that a reconnecting phone
gets what it missed and SQLite servers can see new writes by polling.
"""
from alembic import op
import sqlalchemy as sa


revision = '7d3e2b9c4a10'
down_revision = '5c1f0e7a9b3d'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.add_column(sa.Column('live_version', sa.Integer(), nullable=False, server_default='0'))
    op.create_table(
        'night_changes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('night_id', sa.Integer(), nullable=False),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('match_id', sa.Integer(), nullable=True),
        sa.Column('what', sa.String(length=10), nullable=False),
        sa.Column('round_no', sa.Integer(), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['night_id'], ['nights.id'], ),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('night_id', 'version', name='uq_night_change'),
    )
    with op.batch_alter_table('night_changes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_night_changes_night_id'), ['night_id'], unique=False)


def downgrade():
    with op.batch_alter_table('night_changes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_night_changes_night_id'))
    op.drop_table('night_changes')
    with op.batch_alter_table('nights', schema=None) as batch_op:
        batch_op.drop_column('live_version')
